/**
 * The soak's agent: each invocation runs one admit→dispatch→complete tool call on its own port and
 * succeeds. Ports are kept per invocation, so any number of invocations may overlap.
 */
import type {
  InvocationToolActionPort,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
} from "../../src/index.js";
import { oneToolCall } from "../../test/helpers/tool-requests.js";
import { noopResult } from "../shared/index.js";

/** One tool call per invocation, no waiting. */
export class OneToolCallRuntime implements ParticipantRuntime {
  readonly #ports = new Map<string, InvocationToolActionPort>();
  toolCalls = 0;

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  async admitAction(request: ParticipantActionRequest): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    if (port === undefined) throw new Error(`no port attached for ${request.actionInstanceId}`);
    await oneToolCall(port, "call-1");
    this.toolCalls += 1;
    return noopResult(request);
  }

  /** Ports attached and not yet used: must stay zero between steps, or the soak leaks them. */
  get pending(): number {
    return this.#ports.size;
  }
}

import type {
  InvocationToolActionPort,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
} from "../../src/index.js";
import { oneToolCall, succeededResult } from "./tool-requests.js";

/**
 * An I/O-bound agent: each invocation waits `sleepMs` on a timer (as an agent waits on its model),
 * then runs one admit→dispatch→complete tool call on its own port. Ports are kept per invocation,
 * so any number of invocations may overlap.
 */
export class SleepingToolRuntime implements ParticipantRuntime {
  readonly #sleepMs: number;
  readonly #ports = new Map<string, InvocationToolActionPort>();
  /** Called after each tool call completed, with its tool action id. */
  onToolCall: ((actionId: string) => void) | undefined;

  constructor(sleepMs: number) {
    this.#sleepMs = sleepMs;
  }

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  async admitAction(request: ParticipantActionRequest): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    if (port === undefined) throw new Error(`no port attached for ${request.actionInstanceId}`);
    await new Promise((resolve) => setTimeout(resolve, this.#sleepMs));
    const id = await oneToolCall(port, "call-1");
    this.onToolCall?.(id);
    return succeededResult(request, "sleeping-tool-runtime");
  }
}

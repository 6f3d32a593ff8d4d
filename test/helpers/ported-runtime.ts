import { type InvocationToolActionPort, ReferenceAutonomousParticipantRuntime } from "../../src/index.js";

/**
 * A test harness's participant runtime that keeps the tool-action port the manager attaches before
 * each invocation, until that invocation's `modelAction` takes it.
 */
export abstract class PortedRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly #ports = new Map<string, InvocationToolActionPort>();

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  /** The port attached for `request`'s invocation, kept no longer; undefined when none was. */
  protected takePort(request: { readonly actionInstanceId: string }): InvocationToolActionPort | undefined {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    return port;
  }
}

import type { InvocationToolActionPort, PortAck } from "./types.js";

/** The longest reason a withholding carries; a reason is a short code, never a message or arguments. */
const MAX_REASON = 64;
const REASON = /^[a-z][a-z0-9_.-]*$/;

type Withholder = (actionInstanceId: unknown, reason: string) => Promise<PortAck>;

// Keyed by the exact port object, as the combined admit and dispatch is: a wrapper gets plain `cancel`.
const withholders = new WeakMap<object, Withholder>();

/** Lets `withhold` on exactly `port` record its reason; internal to the port and its bridges. */
export function registerWithhold(port: InvocationToolActionPort, withholder: Withholder): void {
  withholders.set(port, withholder);
}

/** `value` when it is a withheld reason: a short lower-case code. */
export function parseWithheldReason(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= MAX_REASON && REASON.test(value) ? value : undefined;
}

/**
 * Cancels an admitted action before dispatch, as `port.cancel` does (it settles `withheld`), and
 * records why on its tool-action record (`withheldReason`). A port not built by raes-ts (or wrapped)
 * gets a plain `cancel`: the action is withheld all the same, without the reason.
 *
 * @example
 * const decision = await port.admit(request);
 * if (decision.admitted) await withhold(port, decision.actionInstanceId, "arguments_rejected");
 */
export function withhold(
  port: InvocationToolActionPort,
  actionInstanceId: string,
  reason: string,
): Promise<PortAck> {
  const withholder = withholders.get(port);
  return withholder ? withholder(actionInstanceId, reason) : port.cancel(actionInstanceId);
}

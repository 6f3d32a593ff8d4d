import type { AdmitDecision, DispatchReceipt, InvocationToolActionPort } from "./types.js";

/**
 * The answer to `admitAndDispatch`: the admission decision, and the dispatch receipt when the call
 * was admitted afresh and dispatched in the same durable write. No receipt means nothing was
 * dispatched: a refusal, a repeated `tool_call_id` (its original decision), or a port that cannot
 * combine the two steps; the caller then dispatches (or not) with `port.dispatch` as usual.
 */
export interface AdmitDispatchAnswer {
  readonly decision: AdmitDecision;
  readonly receipt?: DispatchReceipt;
}

type Combined = (request: unknown) => Promise<AdmitDispatchAnswer>;

// Keyed by the exact port object: a wrapper (a spread copy, a Proxy) is another object, so its own
// admit and dispatch are never bypassed; it gets the plain two-step path.
const combined = new WeakMap<object, Combined>();

/** Lets `admitAndDispatch` on exactly `port` admit and dispatch in one step; internal to the port and its bridges. */
export function registerAdmitDispatch(port: InvocationToolActionPort, admitDispatch: Combined): void {
  combined.set(port, admitDispatch);
}

/**
 * Admits `request` and, when it is admitted afresh, dispatches it with one durable write (one wire
 * round trip through a bridge). The receipt is returned only after the dispatch record is committed,
 * as `dispatch` would. A port not built by raes-ts (or wrapped) answers the admission alone.
 */
export function admitAndDispatch(
  port: InvocationToolActionPort,
  request: unknown,
): Promise<AdmitDispatchAnswer> {
  const fast = combined.get(port);
  if (fast) return fast(request);
  return port.admit(request as never).then((decision) => ({ decision }));
}

/** True when `port` admits and dispatches in one step (a raes-ts port, or a bridge to one that says so). */
export function combinesAdmitDispatch(port: InvocationToolActionPort): boolean {
  return combined.has(port);
}

import type { ParticipantToolActionRefusal } from "./codes.js";
import type { InvocationToolActionPort } from "./types.js";

/** How a held call's approval ended: dispatch it, or withhold it with the matching reason. */
export type ApprovalDecision = "approved" | "denied" | "expired";

/** The answer to `awaitApproval`. */
export type ApprovalAnswer =
  | { readonly ok: true; readonly decision: ApprovalDecision }
  | { readonly ok: false; readonly refusal: ParticipantToolActionRefusal };

/** How long a held call may wait, and what ends the wait early. */
export interface ApprovalWait {
  /** Seconds from the hold to its expiry (a map entry's `timeout_seconds`, default 300). */
  readonly timeoutSeconds: number;
  /** Aborted when the agent gives up on the call: a pending approval then expires. */
  readonly signal?: AbortSignal;
}

/** The longest wait a hold may ask for: one day. */
export const MAX_APPROVAL_SECONDS = 86_400;

type Approver = (actionInstanceId: unknown, wait: ApprovalWait) => Promise<ApprovalAnswer>;

// Keyed by the exact port object, as `withhold` is: a port not built by raes-ts cannot hold a call.
const approvers = new WeakMap<object, Approver>();

/** Lets `awaitApproval` on exactly `port` hold its calls; internal to the port and its bridges. */
export function registerApproval(port: InvocationToolActionPort, approver: Approver): void {
  approvers.set(port, approver);
}

/** Whether `port` can hold a call for approval (a raes-ts port, or a bridge to one that offers it). */
export function holdsForApproval(port: InvocationToolActionPort): boolean {
  return approvers.has(port);
}

/** `value` as a wait, when it is one: whole seconds from 1 to a day. */
export function parseApprovalWait(value: unknown): ApprovalWait | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { timeoutSeconds } = value as { timeoutSeconds?: unknown };
  if (
    typeof timeoutSeconds !== "number" ||
    !Number.isSafeInteger(timeoutSeconds) ||
    timeoutSeconds < 1 ||
    timeoutSeconds > MAX_APPROVAL_SECONDS
  )
    return undefined;
  return { timeoutSeconds };
}

/**
 * Holds an admitted, undispatched action for an operator's decision (docs/guide/approvals.md): its
 * record durably says `approval: "pending"` until `raes approve` or `raes deny` (from any process
 * sharing the store) decides, the timeout passes, `signal` aborts, or the invocation closes. It then
 * answers the decision: dispatch the action on `approved`; withhold it on `denied` or `expired`
 * (`withhold(port, id, "approval_denied" | "approval_expired")`). Nothing is dispatched here.
 * A port that cannot hold calls answers `state_conflict`; the caller withholds the action.
 *
 * @example
 * const decision = await port.admit(request);
 * if (decision.admitted) {
 *   const answer = await awaitApproval(port, decision.actionInstanceId, { timeoutSeconds: 300 });
 *   if (answer.ok && answer.decision === "approved") await port.dispatch(decision.actionInstanceId);
 * }
 */
export function awaitApproval(
  port: InvocationToolActionPort,
  actionInstanceId: string,
  wait: ApprovalWait,
): Promise<ApprovalAnswer> {
  const approver = approvers.get(port);
  return approver
    ? approver(actionInstanceId, wait)
    : Promise.resolve({ ok: false, refusal: "state_conflict" });
}

/** Where a held tool call's approval stands (docs/guide/approvals.md). */
export const ApprovalState = {
  /** Admitted and held undispatched until an operator decides or the approval expires. */
  pending: "pending",
  /** An operator approved it; its runtime dispatches it once. */
  approved: "approved",
  /** An operator denied it; it settles `withheld` with `approval_denied`. */
  denied: "denied",
  /** Nobody decided in time (or its invocation or runtime ended first); it settles `withheld` with `approval_expired`. */
  expired: "expired",
} as const;
/** An approval state. */
export type ApprovalState = (typeof ApprovalState)[keyof typeof ApprovalState];

/** Why a pending approval expired. */
export const ApprovalExpiry = {
  /** `timeout_seconds` passed with no decision. */
  timeout: "timeout",
  /** The invocation closed (the agent's session ended) with no decision. */
  invocation_closed: "invocation_closed",
  /** The agent gave up on the call (MCP cancellation) with no decision. */
  call_cancelled: "call_cancelled",
  /** The runtime process ended with the call held; recovery cancelled it. */
  restart: "restart",
} as const;
/** An approval expiry reason. */
export type ApprovalExpiry = (typeof ApprovalExpiry)[keyof typeof ApprovalExpiry];

/** A held tool call's approval, durably: never arguments, only who decided what and when. */
export interface ApprovalRecord {
  readonly state: ApprovalState;
  /** When the call was held (microsecond ISO-8601). */
  readonly requestedAt: string;
  /** How long it may wait for a decision. */
  readonly timeoutSeconds: number;
  /** When it was approved, denied or expired. */
  readonly decidedAt?: string;
  /** Who approved or denied it (absent while pending and when it expired). */
  readonly operator?: string;
  /** The operator's note ("" when none). */
  readonly note?: string;
  /** Why it expired. */
  readonly expiredBy?: ApprovalExpiry;
}

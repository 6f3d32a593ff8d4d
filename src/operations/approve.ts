import {
  type ApprovalRecord,
  ApprovalState,
  type Operation,
  OperatorDecisionKind,
  operationFromToolAction,
  ToolActionPhase,
  type ToolActionRecord,
} from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import { type OperationOwner, OwnerStatus, participantOwner } from "./in-doubt.js";
import { decisionNote, decisionTime, OperatorError, OperatorRefusal, operatorIdentity } from "./operator.js";

/** Why an approve or deny was refused; nothing was recorded. */
export const ApprovalRefusal = {
  /** No tool action has this id. */
  unknown_action: "approval.unknown-action",
  /** The tool action was never held for approval (its map entry has no `approval:`). */
  not_held: "approval.not-held",
  /** The approval expired (timeout, the invocation's close, or a restart) before a decision. */
  expired: "approval.expired",
  /** The call was denied; it cannot be approved after. */
  already_denied: "approval.already-denied",
  /** The call was approved; it cannot be denied after. */
  already_approved: "approval.already-approved",
  /** The approval is still pending, but its action settled (its runtime ended and recovery withheld it). */
  not_pending: "approval.not-pending",
  /**
   * The runtime holding the call is provably gone (its process on this host no longer exists): nobody
   * can dispatch it, and the next start withholds it (`expired_by: "restart"`).
   */
  runtime_gone: "approval.runtime-gone",
  /** The operator name is empty, too long or holds a control character (the operator's own code). */
  operator_invalid: OperatorRefusal.invalid,
  /** The note is longer than 4096 characters (the operator's own code). */
  note_too_long: OperatorRefusal.note_too_long,
  /** The note holds a NUL character or a lone surrogate (the operator's own code). */
  note_invalid: OperatorRefusal.note_invalid,
} as const;
/** An approval refusal code. */
export type ApprovalRefusal = (typeof ApprovalRefusal)[keyof typeof ApprovalRefusal];

/** Who decides and why; `now` is injected for tests. */
export interface ApprovalInput {
  /** Who decides; `operatorIdentity()` (RAES_OPERATOR, else USER@HOST) when absent. */
  readonly operator?: string;
  readonly note?: string;
  readonly now?: () => Date;
}

/** What an approve or deny did. `already-*` answers a repeated decision: nothing new was recorded. */
export type ApprovalOutcome =
  | {
      readonly outcome: "approved" | "already-approved" | "denied" | "already-denied";
      readonly operation: Operation;
    }
  | { readonly outcome: "refused"; readonly code: ApprovalRefusal; readonly message: string };

/**
 * Approves a held tool call (docs/guide/approvals.md): the runtime holding it dispatches it, and the
 * tool runs once. The decision and its operator are recorded in the operator chain in the same
 * transaction. A second approve is `already-approved` and records nothing; after a deny, or once the
 * approval expired, it is refused.
 *
 * @example
 * const answer = await approveToolAction(store, id, { operator: "alice", note: "in scope" });
 * if (answer.outcome === "refused") console.error(answer.code, answer.message);
 */
export function approveToolAction(
  store: ControlPlaneStore,
  id: string,
  input: ApprovalInput = {},
): Promise<ApprovalOutcome> {
  return decide(store, id, ApprovalState.approved, input);
}

/**
 * Denies a held tool call (docs/guide/approvals.md): the runtime holding it withholds it
 * (`withheld_reason: "approval_denied"`), and the upstream never sees it. Recorded as `approveToolAction` is;
 * a second deny is `already-denied`; after an approve, or once the approval expired, it is refused.
 */
export function denyToolAction(
  store: ControlPlaneStore,
  id: string,
  input: ApprovalInput = {},
): Promise<ApprovalOutcome> {
  return decide(store, id, ApprovalState.denied, input);
}

/**
 * Why approving the held call `id` at `now` would run nothing, as `approveToolAction` would refuse it:
 * its timeout has passed (`approval.expired`) or the runtime holding it is gone
 * (`approval.runtime-gone`). Undefined while an approve can still run it, or when it is not held.
 * A listing prints only the deny of such a call: the approve it would print is refused.
 */
export async function approvalLapsed(
  store: ControlPlaneStore,
  id: string,
  now: Date = new Date(),
): Promise<ApprovalLapse | undefined> {
  const action = await store.getToolAction(id);
  return action === undefined ? undefined : (await approvalsLapsed(store, [{ ...action, id }], now)).get(id);
}

/** Why an approve of a held call would be refused: `approval.expired` or `approval.runtime-gone`. */
export interface ApprovalLapse {
  readonly code: ApprovalRefusal;
  readonly message: string;
}

/**
 * `approvalLapsed` of every held call a listing read (its rows' ids, participants and approvals), each
 * participant's runtime asked after once, however many calls it holds: the lapsed ones, by id.
 */
export async function approvalsLapsed(
  store: ControlPlaneStore,
  held: readonly {
    readonly id: string;
    readonly participantAddress: string;
    readonly approval?: ApprovalRecord;
  }[],
  now: Date = new Date(),
): Promise<Map<string, ApprovalLapse>> {
  const owners = new Map<string, Promise<OperationOwner>>();
  const ownerOf = (participant: string) => {
    let owner = owners.get(participant);
    if (owner === undefined) {
      owner = participantOwner(store, participant, () => now.getTime());
      owners.set(participant, owner);
    }
    return owner;
  };
  const lapsed = new Map<string, ApprovalLapse>();
  for (const call of held) {
    if (call.approval?.state !== ApprovalState.pending) continue;
    const late = await lateOrOrphaned(call, call.id, ApprovalState.approved, now, ownerOf);
    if (late?.outcome === "refused") lapsed.set(call.id, { code: late.code, message: late.message });
  }
  return lapsed;
}

type Decided = typeof ApprovalState.approved | typeof ApprovalState.denied;

const refused = (code: ApprovalRefusal, message: string): ApprovalOutcome => ({
  outcome: "refused",
  code,
  message,
});

async function decide(
  store: ControlPlaneStore,
  id: string,
  want: Decided,
  input: ApprovalInput,
): Promise<ApprovalOutcome> {
  let operator: string;
  let note: string;
  try {
    operator = operatorIdentity(input.operator);
    note = decisionNote(input.note);
  } catch (error) {
    if (error instanceof OperatorError) return refused(error.code, error.message);
    throw error;
  }
  const clock = input.now ?? (() => new Date());
  const decidedAt = decisionTime(clock());
  // Read, then compare-and-set from pending: a concurrent decider makes the write find nothing, and
  // the second read answers as if it had come after (at most two rounds: a decision is final).
  for (let round = 0; round < 2; round += 1) {
    const action = await store.getToolAction(id);
    const now = clock();
    const standing =
      standingOf(action, id, want) ??
      (await lateOrOrphaned(action, id, want, now, (p) => participantOwner(store, p, () => now.getTime())));
    if (standing) return standing;
    const pending = (action as ToolActionRecord).approval as ApprovalRecord;
    const approval: ApprovalRecord = { ...pending, state: want, decidedAt, operator, note };
    const kind = want === ApprovalState.approved ? OperatorDecisionKind.approve : OperatorDecisionKind.deny;
    const decision = { kind, subject: id, operator, note, decided_at: decidedAt };
    if (await store.recordApproval(id, approval, ApprovalState.pending, decision)) {
      const operation = await store.getOperation(id);
      if (operation) return { outcome: want, operation };
    }
  }
  return refused(ApprovalRefusal.not_pending, `${id} is no longer pending`);
}

/** The answer when `action` cannot be decided now (undefined when its approval is pending and open). */
function standingOf(
  action: ToolActionRecord | undefined,
  id: string,
  want: Decided,
): ApprovalOutcome | undefined {
  if (!action) return refused(ApprovalRefusal.unknown_action, `no tool action ${id}`);
  const approval = action.approval;
  if (!approval)
    return refused(ApprovalRefusal.not_held, `${id} was not held for approval (it is ${action.phase})`);
  const by = (a: ApprovalRecord) => `by ${a.operator ?? "?"} at ${a.decidedAt ?? "?"}`;
  if (approval.state === want) {
    const operation = operationFromToolAction(action);
    return { outcome: want === "approved" ? "already-approved" : "already-denied", operation };
  }
  if (approval.state === ApprovalState.approved)
    return refused(ApprovalRefusal.already_approved, `${id} was already approved ${by(approval)}`);
  if (approval.state === ApprovalState.denied)
    return refused(ApprovalRefusal.already_denied, `${id} was already denied ${by(approval)}`);
  if (approval.state === ApprovalState.expired)
    return refused(
      ApprovalRefusal.expired,
      `the approval of ${id} expired (${approval.expiredBy ?? "timeout"}) at ${approval.decidedAt ?? "?"}; the call was withheld`,
    );
  if (action.phase !== ToolActionPhase.admitted)
    return refused(ApprovalRefusal.not_pending, `${id} is already ${action.settlement ?? action.phase}`);
  return undefined;
}

/**
 * Why an approve of a still-pending call would dispatch nothing (undefined when it can run): its
 * timeout has passed, so its runtime is withholding it; or the runtime holding it is provably dead,
 * so recovery will. Saying `approved` then would promise a run that never comes. A deny is kept:
 * it withholds the call, which is what happens anyway.
 */
async function lateOrOrphaned(
  action: { readonly participantAddress: string; readonly approval?: ApprovalRecord } | undefined,
  id: string,
  want: Decided,
  now: Date,
  ownerOf: (participant: string) => Promise<OperationOwner>,
): Promise<ApprovalOutcome | undefined> {
  const approval = action?.approval;
  if (!action || !approval || want !== ApprovalState.approved) return undefined;
  const deadline = Date.parse(approval.requestedAt) + approval.timeoutSeconds * 1000;
  if (now.getTime() >= deadline)
    return refused(
      ApprovalRefusal.expired,
      `the approval of ${id} timed out at ${new Date(deadline).toISOString()}; its runtime withholds the call`,
    );
  const owner = await ownerOf(action.participantAddress);
  if (owner.status === OwnerStatus.dead)
    return refused(
      ApprovalRefusal.runtime_gone,
      `the runtime holding ${id} (pid ${owner.pid ?? "?"}) is gone; its next start withholds the call`,
    );
  return undefined;
}

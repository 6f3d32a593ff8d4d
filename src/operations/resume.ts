import type { ControlPlaneStore, SchedulerLifecycle, SchedulerRecord } from "../store/index.js";
import { decisionTime } from "./operator.js";
import { newOwnerId, takeParticipantLease } from "./owner.js";

/** Ids of a participant's indeterminate tool actions that no operator has resolved yet. */
export async function unresolvedIndeterminateActions(
  store: ControlPlaneStore,
  participantAddress: string,
): Promise<string[]> {
  const settled = await store.listToolActions({ participantAddress, phase: "settled" });
  return settled
    .filter((a) => a.settlement === "indeterminate" && a.resolution === undefined)
    .map((a) => a.id);
}

/** What resuming one scheduler record does. */
export type ResumeDecision =
  /** The record was stopped; `record` runs again (or is `completed` when its bound is used up). */
  | { readonly kind: "resumed"; readonly record: SchedulerRecord }
  /** The record is running or completed; nothing changes. */
  | { readonly kind: "not_stopped"; readonly lifecycle: SchedulerLifecycle }
  /** The v2 continuation ended `failed` (failure_policy stop): nothing can run it before a reset. */
  | { readonly kind: "not_resumable"; readonly reason: string };

/**
 * Decides a resume of one scheduler record. A stopped record runs again with its stop reason cleared,
 * `completed` instead when its attempt bound (`maxActionAttempts`, else the one the record carries) is
 * used up or its v2 continuation completed, as in RAES. A v2 continuation that ended `failed` is
 * refused: RAES never runs it again in that segment.
 */
export function resumeDecision(
  record: SchedulerRecord,
  at: string,
  maxActionAttempts: number | undefined = record.maxActionAttempts,
): ResumeDecision {
  if (record.lifecycle !== "stopped") return { kind: "not_stopped", lifecycle: record.lifecycle };
  if (record.activity?.lifecycle_state === "failed")
    return {
      kind: "not_resumable",
      reason: `${record.policyAddress}: its v2 continuation ended failed (${record.stopReason ?? "failure_policy"}); only a reset starts it again`,
    };
  const { stopReason: _reason, ...rest } = record;
  const exhausted = record.activity
    ? record.activity.lifecycle_state === "completed"
    : maxActionAttempts !== undefined && record.attempts >= maxActionAttempts;
  return {
    kind: "resumed",
    record: { ...rest, lifecycle: exhausted ? "completed" : "running", updatedAt: at },
  };
}

/**
 * The runtime's refusal codes a stored resume answers with (RuntimeErrorCode spells the same strings;
 * operations sits below the runtime, and test/operations/resume-stored.test.ts holds them equal).
 */
export const ResumeRefusal = {
  /** Indeterminate tool actions of the participant are unresolved: resolve them first. */
  unresolved_indeterminate: "runtime.unresolved-indeterminate-actions",
  /** The store holds no scheduler for the participant. */
  unknown_participant: "runtime.unknown-participant",
  /** A v2 continuation ended `failed`: only a reset starts it again. */
  scheduler_not_resumable: "runtime.scheduler-not-resumable",
  /** A live runtime holds the participant's lease: resume it there. */
  participant_owned: "runtime.participant-owned",
} as const;
/** A stored resume's refusal code. */
export type ResumeRefusal = (typeof ResumeRefusal)[keyof typeof ResumeRefusal];

/** What resuming a participant over a store did, or why it was refused (nothing written then). */
export type ResumeAnswer =
  /** `resumed`: policies running again; `completed`: stopped ones whose bound was used up. */
  | { readonly resumed: string[]; readonly completed?: string[] }
  /** Nothing was stopped: each policy's lifecycle, unchanged; invocations a dead run left open, if any. */
  | { readonly not_stopped: Record<string, string>; readonly interrupted?: string[] }
  | {
      readonly error: ResumeRefusal;
      readonly message: string;
      readonly unresolved?: string[];
      readonly reasons?: string[];
    };

/**
 * Resumes a participant's stopped schedulers over a store with no runtime open (`raes resume`, the
 * console's button): refused while indeterminate actions are unresolved or a live runtime holds its
 * lease. The schedulers run again and the operator's `resume` decision is chained in one transaction.
 */
export async function resumeStoredParticipant(
  store: ControlPlaneStore,
  participant: string,
  by: { readonly operator: string; readonly note: string },
  now: () => Date = () => new Date(),
): Promise<ResumeAnswer> {
  const unresolved = await unresolvedIndeterminateActions(store, participant);
  if (unresolved.length > 0) {
    return {
      error: ResumeRefusal.unresolved_indeterminate,
      message: "resolve these first, each with one of (the effect happened / did not)",
      unresolved,
    };
  }
  const records = (await store.listSchedulers()).filter((s) => s.participantAddress === participant);
  if (records.length === 0)
    return { error: ResumeRefusal.unknown_participant, message: `no scheduler for ${participant}` };
  const at = decisionTime(now());
  // The bound each record carries (schema step 7) completes a v1 schedule whose attempts are used up.
  const decisions = records.map((record) => resumeDecision(record, at));
  const reasons = decisions.flatMap((d) => (d.kind === "not_resumable" ? [d.reason] : []));
  if (reasons.length > 0)
    return {
      error: ResumeRefusal.scheduler_not_resumable,
      message: `${participant} cannot be resumed`,
      reasons,
    };
  const stopped = decisions.flatMap((d) => (d.kind === "resumed" ? [d.record] : []));
  // Taking the lease fences out a live owner: its scheduler is resumed there, not behind its back.
  // An owner that provably died on this host (as `raes run` judges it) holds nothing.
  const lease = await takeParticipantLease(store, participant, newOwnerId(), 10_000);
  if (!lease)
    return {
      error: ResumeRefusal.participant_owned,
      message: "a live runtime owns this participant; resume it there",
    };
  try {
    // The schedulers run again and the decision is chained in one transaction (docs/evidence-format.md).
    if (stopped.length > 0)
      await store.recordDecision(
        { kind: "resume", subject: participant, operator: by.operator, note: by.note, decided_at: at },
        stopped,
        { participantAddress: participant, token: lease.token },
      );
  } finally {
    await store.releaseLease(lease);
  }
  if (stopped.length === 0) {
    const interrupted = (await store.listOpenInvocations(participant)).map((i) => i.id);
    return {
      not_stopped: Object.fromEntries(records.map((r) => [r.policyAddress, r.lifecycle])),
      ...(interrupted.length > 0 ? { interrupted } : {}),
    };
  }
  const completed = stopped.filter((r) => r.lifecycle === "completed").map((r) => r.policyAddress);
  return {
    resumed: stopped.filter((r) => r.lifecycle === "running").map((r) => r.policyAddress),
    ...(completed.length > 0 ? { completed } : {}),
  };
}

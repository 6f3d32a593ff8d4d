import type { ControlPlaneStore, SchedulerLifecycle, SchedulerRecord } from "../store/index.js";

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

import type { ControlPlaneStore, SchedulerRecord } from "../store/index.js";

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

/**
 * The scheduler record running again, with its stop reason cleared; `completed` instead when its
 * attempt bound (`maxActionAttempts`, when known) is used up or its v2 continuation completed, as in RAES.
 */
export function resumedScheduler(
  record: SchedulerRecord,
  at: string,
  maxActionAttempts?: number,
): SchedulerRecord {
  const { stopReason: _reason, ...rest } = record;
  const exhausted = record.activity
    ? record.activity.lifecycle_state === "completed"
    : maxActionAttempts !== undefined && record.attempts >= maxActionAttempts;
  return { ...rest, lifecycle: exhausted ? "completed" : "running", updatedAt: at };
}

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

/** The scheduler record running again, with its stop reason cleared. */
export function resumedScheduler(record: SchedulerRecord, at: string): SchedulerRecord {
  const { stopReason: _reason, ...rest } = record;
  return { ...rest, lifecycle: "running", updatedAt: at };
}

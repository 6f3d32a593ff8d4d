import type { ActivityProvenance, HistoryEventDraft } from "../../history/index.js";
import type { PlannedAttempt, V2Plan } from "./engine.js";

/** RAES's safe occurrence provenance of one attempt; it names the control, never its seed or key. */
export function v2Provenance(
  plan: V2Plan,
  policyProfile: string,
  attempt: PlannedAttempt,
  terminalOutcome: string,
): ActivityProvenance {
  return {
    policy_address: plan.stream.policyAddress,
    policy_profile: policyProfile,
    occurrence_id: attempt.occurrenceId,
    attempt_id: attempt.attemptId,
    predecessor_attempt_id: attempt.predecessorAttemptId,
    candidate_id: attempt.candidate.id,
    dependency_candidate_ids: [...attempt.candidate.dependsOn],
    timing_tick: attempt.tick,
    timing_disposition: attempt.timingDisposition,
    burst_position: attempt.burstPosition,
    random_control_id: plan.stream.controlId,
    random_profile_id: plan.stream.profileId,
    random_address: { ...attempt.randomAddress },
    terminal_outcome: terminalOutcome,
  };
}

/** The events with the attempt's provenance on each (tool triples and the outer triple alike). */
export function withProvenance(
  events: readonly HistoryEventDraft[],
  provenance: ActivityProvenance | undefined,
): HistoryEventDraft[] {
  return provenance ? events.map((e) => ({ ...e, activity_provenance: provenance })) : [...events];
}

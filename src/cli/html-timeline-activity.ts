import type { ActivityProvenance } from "../history/index.js";
import type { TimelineInvocation } from "./html-timeline-model.js";

/** The v2 provenance of an invocation (on its outer events, else on its tool events). */
export function activityOf(invocation: TimelineInvocation): ActivityProvenance | undefined {
  const events = [...invocation.outerEvents, ...invocation.toolActions.flatMap((a) => a.events)];
  return events.find((e) => e.activity_provenance)?.activity_provenance;
}

/** One line for the invocation row: candidate, how its tick was chosen, and what it retries. */
export function activityMeta(p: ActivityProvenance): string {
  const retry = p.predecessor_attempt_id
    ? ` · retry of ${p.predecessor_attempt_id.split(":").at(-1) ?? ""}`
    : "";
  const burst = p.burst_position > 0 ? ` · burst #${p.burst_position}` : "";
  return `${p.candidate_id} · ${p.timing_disposition} @ tick ${p.timing_tick}${burst}${retry}`;
}

/** The detail rows of v2 provenance: candidate, disposition and the retry chain. */
export function activityRows(p: ActivityProvenance): [string, unknown][] {
  return [
    ["candidate_id", p.candidate_id],
    ["timing_disposition", p.timing_disposition],
    ["timing_tick", p.timing_tick],
    ["burst_position", p.burst_position],
    ["occurrence_id", p.occurrence_id],
    ["predecessor_attempt_id", p.predecessor_attempt_id ?? "none (first attempt)"],
    [
      "dependency_candidate_ids",
      p.dependency_candidate_ids.length > 0 ? [...p.dependency_candidate_ids] : "none",
    ],
    ["terminal_outcome", p.terminal_outcome],
    ["random_control_id", p.random_control_id],
    ["random_profile_id", p.random_profile_id],
  ];
}

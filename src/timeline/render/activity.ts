import type { ActivityProvenance } from "../../history/index.js";
import type { ContinuationView } from "../../runtime/index.js";
import type { TimelineInvocation } from "../model/index.js";

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

/**
 * The attempts this one retries, first attempt first: RAES's retry `r` of an occurrence names
 * retry `r - 1` as its predecessor, so the chain is the same id with retry 0 … r - 1.
 */
export function retryChain(p: ActivityProvenance): string[] {
  const match = /^(.*):retry=(\d+)$/.exec(p.attempt_id);
  if (!match || p.predecessor_attempt_id === null) return [];
  const [, stem, retry] = match;
  return Array.from({ length: Number(retry) }, (_, i) => `${stem}:retry=${i}`);
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
    ["retry_chain", p.predecessor_attempt_id ? [...retryChain(p), `${p.attempt_id} (this attempt)`] : "none"],
    [
      "dependency_candidate_ids",
      p.dependency_candidate_ids.length > 0 ? [...p.dependency_candidate_ids] : "none",
    ],
    ["terminal_outcome", p.terminal_outcome],
    ["random_control_id", p.random_control_id],
    ["random_profile_id", p.random_profile_id],
  ];
}

/** One line of a v2 scheduler's continuation for its badge. */
export function continuationText(c: ContinuationView): string {
  return [
    `continuation ${c.lifecycle_state}`,
    `next tick ${c.next_tick} (${c.next_timing_disposition})`,
    `occurrence ${c.occurrence_ordinal}`,
    `retry ${c.current_retry}`,
    `burst ${c.burst_position}/${c.burst_size}`,
    `attempts ${c.attempted_actions} (${c.succeeded_actions} succeeded, ${c.failed_actions} failed)`,
  ].join(" · ");
}

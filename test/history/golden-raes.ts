import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HistoryEvent } from "../../src/index.js";
import { ROOT } from "../helpers/example.js";

/** RAES's own triple for the example's first action (recorded from the reference). */
export const RAES_TRIPLE_FILE = join(ROOT, "test", "fixtures", "conformance", "raes-v1-outer-triple.json");

/** One RAES event as recorded, its keys in RAES's order. */
export type RaesEvent = Readonly<Record<string, unknown>>;

/** RAES's triple: action_attempted, state_transition_recorded, observation_emitted. */
export function raesTriple(): readonly RaesEvent[] {
  return (JSON.parse(readFileSync(RAES_TRIPLE_FILE, "utf8")) as { events: RaesEvent[] }).events;
}

/** RAES's timestamp of the triple (all three events carry it): the golden run's fixed clock reads it. */
export function raesTripleMillis(): number {
  const stamp = String(raesTriple()[0]?.timestamp);
  const match = /^(.*\.\d{3})(\d{3})Z$/.exec(stamp);
  if (!match) throw new Error(`RAES's timestamp ${stamp} is not microsecond ISO-8601`);
  return Date.parse(`${match[1]}Z`) + Number(match[2]) / 1000;
}

/**
 * raes-ts's own fields (docs/design.md §7); `sequence` is the store's commit order, `chain_digest`
 * the event's link in its participant's hash chain (docs/evidence-format.md).
 */
export const OWN_FIELDS = new Set([
  "event_id",
  "sequence",
  "chain_digest",
  "execution_scope_ref",
  "execution_generation",
  "invocation_tool_context",
  "activity_provenance",
]);

/** Fields whose value is raes-ts's own on every event: a digest of raes-ts's state. */
const OWN_VALUES = new Set(["post_state_digest"]);

/** Fields whose value belongs to the tool action on its events (RAES has no tool actions). */
const TOOL_VALUES = new Set(["action_instance_id", "observation_status", "action_result"]);

/** RAES's fields of a tool action's result: its identity and observation point within the invocation. */
const RESULT_CONTEXT = ["participant_address", "episode_id", "action_contract_address", "observation_point"];

/**
 * The golden events: every RAES-defined field takes RAES's value from its triple (for tool-action events,
 * every field RAES defines for the whole invocation); only raes-ts's own fields, its state digests and the
 * tool action's own values come from raes-ts's run. Keys keep raes-ts's order; a RAES field raes-ts lacks
 * is appended, so the golden then differs from raes-ts's output and the golden test fails.
 */
export function deriveGolden(ours: readonly HistoryEvent[]): Record<string, unknown>[] {
  const byType = new Map(raesTriple().map((e) => [String(e.event_type), e]));
  return ours.map((event) => {
    const raes = byType.get(event.event_type);
    if (!raes) throw new Error(`RAES's triple has no ${event.event_type}`);
    const tool = event.invocation_tool_context !== undefined;
    const out: Record<string, unknown> = { ...event };
    for (const [key, value] of Object.entries(raes)) {
      if (OWN_VALUES.has(key)) continue;
      if (tool && TOOL_VALUES.has(key)) continue;
      out[key] = value;
    }
    if (tool && event.action_result) {
      const raesResult = raes.action_result as Record<string, unknown>;
      const result: Record<string, unknown> = { ...event.action_result };
      for (const key of RESULT_CONTEXT) result[key] = raesResult[key];
      out.action_result = result;
    }
    return out;
  });
}

/** An event with raes-ts's own fields and state digests taken out: what RAES defines. */
export function raesDefined(event: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(event).filter(([key]) => !OWN_FIELDS.has(key) && !OWN_VALUES.has(key)),
  );
}

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import type { HistoryEventDraft } from "../../src/history/index.js";
import { ROOT } from "../helpers/example.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, event, invocation, scheduler, unchained, unchainedLine } from "./records.js";

const GOLDEN = join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl");
const RAES_V2 = join(ROOT, "test", "fixtures", "conformance", "v2", "raes-v2-history-first-5-steps.json");

/** The golden history's lines, each the exported JSON of one committed event. */
function goldenLines(): string[] {
  return readFileSync(GOLDEN, "utf8").split("\n").filter(Boolean);
}

/** Commits `drafts` as one close of a fresh invocation; returns the events read back as exported JSON. */
async function roundTrip(fixture: FixtureSource, drafts: readonly HistoryEventDraft[]): Promise<string[]> {
  const { store } = fixture();
  const inv = invocation();
  await store.openInvocation(inv, scheduler({ attempts: 1, nextOrdinal: 2 }));
  await store.commitInvocation({ ...closeCommit(inv), events: drafts });
  return unchained(await store.listEvents({})).map((e) => JSON.stringify(e));
}

/** The exported JSON of `draft` committed at `sequence`. */
const exported = (draft: HistoryEventDraft, sequence: number) => JSON.stringify({ ...draft, sequence });

/** Events whose keys, strings and nesting the runtime never writes, each kept as written. */
function oddEvents(): HistoryEventDraft[] {
  const inv = invocation({ id: "inv-odd:participant-a:0:tool=1" });
  const base = event(inv, "action_attempted");
  return [
    // Keys in another order than the runtime builds them, and a key it never writes.
    { ...JSON.parse(JSON.stringify({ extra: { b: 1, a: [-1, 0, [], [[-2]]] } })), ...base },
    // Control characters, quotes, non-BMP text, and strings equal to the row's keys elsewhere.
    event(inv, "state_transition_recorded", {
      event_id: '\u0001\u001f"\\ tab\t 🦆 é',
      actor_provenance: inv.participantAddress,
      post_state_digest: inv.id,
      // Beginnings and extensions of the action instance id, short and long.
      state_transition_kind: inv.id.slice(0, 8),
      admission_disposition: inv.id.slice(0, 7),
      observation_boundary_address: `${inv.id}${inv.id}`,
      lifecycle_phase: "",
      phase_realization: "x",
    }),
    // An own `__proto__` key, a null, numbers at the edges, and an undefined field left out.
    {
      ...event(inv, "observation_emitted"),
      actor_provenance: undefined as unknown as string,
      ...JSON.parse('{"__proto__": {"nested": ["submit", "submit"]}, "n": null, "big": 1e300, "neg": -0.5}'),
    },
    // A v2 event with the provenance the runtime writes (a null predecessor).
    {
      ...event(inv, "action_attempted"),
      activity_provenance: {
        policy_address: "policy:green/autonomous",
        policy_profile: "raes-v2",
        occurrence_id: "occ-1",
        attempt_id: "att-1",
        predecessor_attempt_id: null,
        candidate_id: "portal_login",
        dependency_candidate_ids: ["check_status", "check_status"],
        timing_tick: 10,
        timing_disposition: "on_time",
        burst_position: 0,
        random_control_id: "control-1",
        random_profile_id: "profile-1",
        random_address: {
          namespace: "green-activity",
          policy_address: "policy:green/autonomous",
          participant_address: inv.participantAddress,
          time_segment: 0,
          occurrence_ordinal: 1,
          draw_purpose: "selection",
          local_coordinate: 0,
        },
        terminal_outcome: "succeeded",
      },
    },
  ];
}

/**
 * Events of one close sharing their objects, as the runtime builds a tool action's triple and the
 * invocation's: the shared context names the invocation's id, which begins the tool action's id.
 */
function sharedFrameEvents(): HistoryEventDraft[] {
  const outer = invocation({ id: "inv-shared:participant-a:0" });
  const tool = `${outer.id}:tool=1`;
  const context = {
    invocation_action_instance_id: outer.id,
    invocation_action_contract_address: outer.actionContractAddress,
    tool_affordance_address: "tool:green/portal-client",
    tool_call_id: "call-0",
    admission_ordinal: 1,
    settlement: "succeeded",
    execution_scope_ref: outer.executionScopeRef,
    execution_generation: outer.executionGeneration,
  };
  const temporal = event(outer, "action_attempted").temporal_contexts;
  const shared = { temporal_contexts: temporal, invocation_tool_context: context };
  return [
    { ...event(outer, "action_attempted", { action_instance_id: tool, event_id: `${tool}#a` }), ...shared },
    { ...event(outer, "observation_emitted", { action_instance_id: tool }), ...shared },
    { ...event(outer, "action_attempted"), ...shared },
    { ...event(outer, "observation_emitted", { participant_address: "participant:other" }), ...shared },
  ];
}

/** History bodies: whatever form a store keeps them in, each event reads back as the same JSON. */
export function historyBodyCases(fixture: FixtureSource): void {
  it("keeps every golden history event byte for byte in its exported JSON", async () => {
    const lines = goldenLines();
    const drafts = lines.map((line) => {
      const { sequence: _sequence, ...draft } = JSON.parse(unchainedLine(line)) as HistoryEventDraft & {
        sequence: number;
      };
      return draft;
    });
    assert.deepEqual(await roundTrip(fixture, drafts), lines.map(unchainedLine));
  });

  it("keeps the events of a close that share objects across action instance ids, as written", async () => {
    const drafts = sharedFrameEvents();
    assert.deepEqual(
      await roundTrip(fixture, drafts),
      drafts.map((d, i) => exported(d, i + 1)),
    );
  });

  it("keeps RAES's v2 events and events of shapes the runtime never writes, as written", async () => {
    const raes = (JSON.parse(readFileSync(RAES_V2, "utf8")) as { events: HistoryEventDraft[] }).events;
    const drafts = [...raes, ...oddEvents()];
    assert.deepEqual(
      await roundTrip(fixture, drafts),
      drafts.map((d, i) => exported(d, i + 1)),
    );
  });
}

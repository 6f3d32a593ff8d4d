import assert from "node:assert/strict";
import { it } from "node:test";
import {
  EXECUTION_SERVICE_STATE_SCHEMA,
  type OperatorDecisionDraft,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  pacingDeviationRef,
} from "../../src/records/index.js";
import type { FixtureSource } from "./contract.js";
import { P1, P2 } from "./records.js";

const PAUSE: OperatorDecisionDraft = {
  kind: "execution_pause",
  subject: P1,
  operator: "alice@ops",
  note: "maintenance",
  decided_at: "2025-01-02T00:00:00.000000Z",
};

function record(revision: number, lifecycle: "running" | "paused" = "running"): ParticipantServiceRecord {
  return {
    participantAddress: P1,
    revision,
    service: {
      schema_version: EXECUTION_SERVICE_STATE_SCHEMA,
      execution_scope_ref: `policy:${P1}`,
      policy_address: "policy",
      desired_lifecycle: lifecycle,
      observed_lifecycle: lifecycle,
      generation: 1,
      observed_generation: 1,
      health: "healthy",
      readiness: lifecycle === "running" ? "ready" : "not_ready",
      accepting_new_work: lifecycle === "running",
      draining: false,
      quiescent: true,
      resources_released: false,
      policy_digest: "sha256:1",
      binding_digest: "sha256:2",
      time_declaration_digest: "sha256:3",
      scheduler_state_refs: [`policy.state.${P1}`],
      resource_budget_state_refs: [],
      capacity: 4,
      reserved: 0,
      in_flight: 0,
      last_transition_ref: `operation:policy:${P1}:start:revision-${revision}`,
      pacing_deviation_refs: [],
      evidence_refs: ["evidence:configure"],
    },
    controlActions: ["start", "pause", "resume", "drain", "reset", "teardown"],
    clockGeneration: 1,
    episode: null,
    episodeHistory: [],
    updatedAt: "2025-01-01T00:00:00.000000Z",
  };
}

/** Participant services (schema step 17): compare-and-set writes, each with its decision in one transaction. */
export function serviceCases(fixture: FixtureSource): void {
  it("writes a participant's service record at revision 1 once, then only over the revision before it", async () => {
    const { store } = fixture();
    assert.equal(await store.getParticipantService(P1), undefined);
    assert.equal(await store.saveParticipantService(record(1)), true);
    assert.equal(await store.saveParticipantService(record(1, "paused")), false, "revision 1 exists");
    assert.deepEqual(await store.getParticipantService(P1), record(1));
    assert.equal(await store.saveParticipantService(record(3, "paused")), false, "skips revision 2");
    assert.equal(await store.saveParticipantService(record(2, "paused"), PAUSE), true);
    assert.deepEqual(await store.listParticipantServices(), [record(2, "paused")]);
    const [decision] = await store.readDecisionPage(0, 10);
    assert.deepEqual([decision?.kind, decision?.subject, decision?.sequence], ["execution_pause", P1, 1]);
  });

  it("a write that loses the compare-and-set appends no decision", async () => {
    const { store } = fixture();
    await store.saveParticipantService(record(1));
    assert.equal(await store.saveParticipantService(record(5), PAUSE), false);
    assert.equal((await store.getDecisionHead()).decisions, 0);
  });
}

function deviation(participantAddress: string, generation: number, at: string): PacingDeviationRecord {
  return {
    participantAddress,
    policyAddress: "policy",
    clockAddress: "time.clock.c",
    generation,
    ref: pacingDeviationRef("policy", "time.clock.c", generation),
    latenessMs: 412.5,
    boundMs: 100,
    recordedAt: at,
  };
}

/** Pacing deviations (schema step 20): one per participant and ref, listed by participant then as recorded. */
export function pacingCases(fixture: FixtureSource): void {
  it("records a pacing deviation once per participant and ref, and lists them by participant then time", async () => {
    const { store } = fixture();
    assert.deepEqual(await store.listPacingDeviations(), []);
    const late = deviation(P2, 1, "2025-01-01T00:00:01.000000Z");
    assert.equal(await store.recordPacingDeviation(late), true);
    assert.equal(await store.recordPacingDeviation({ ...late, latenessMs: 900 }), false, "already recorded");
    assert.equal(await store.recordPacingDeviation(deviation(P1, 2, "2025-01-01T00:00:03.000000Z")), true);
    assert.equal(await store.recordPacingDeviation(deviation(P1, 1, "2025-01-01T00:00:02.000000Z")), true);
    assert.deepEqual(await store.listPacingDeviations(), [
      deviation(P1, 1, "2025-01-01T00:00:02.000000Z"),
      deviation(P1, 2, "2025-01-01T00:00:03.000000Z"),
      late,
    ]);
    assert.deepEqual(await store.listPacingDeviations(P2), [late]);
    assert.deepEqual(await store.listPacingDeviations("participant:nobody"), []);
  });
}

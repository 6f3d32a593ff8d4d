import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { controlEpisode } from "../../../src/operations/index.js";
import { EXECUTION_SERVICE_STATE_SCHEMA, type ParticipantServiceRecord } from "../../../src/records/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { ROOT } from "../../helpers/example.js";

// Recorded from RAES's BaseParticipantRuntime by tools/record-raes-control.py.
const FIXTURE = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "raes-control", "episodes.json"), "utf8"),
) as {
  steps: {
    action: "initialize" | "reset" | "restart" | "terminate";
    participant: string;
    request: Record<string, string | null>;
    success: boolean;
    codes: string[];
    messages: string[];
  }[];
  states: Record<string, Record<string, unknown>>;
  histories: Record<string, Record<string, unknown>[]>;
};

function emptyRecord(participant: string): ParticipantServiceRecord {
  return {
    participantAddress: participant,
    revision: 1,
    service: {
      schema_version: EXECUTION_SERVICE_STATE_SCHEMA,
      execution_scope_ref: participant,
      policy_address: "policy",
      desired_lifecycle: "running",
      observed_lifecycle: "running",
      generation: 0,
      observed_generation: 0,
      health: "healthy",
      readiness: "ready",
      accepting_new_work: true,
      draining: false,
      quiescent: true,
      resources_released: false,
      policy_digest: "sha256:1",
      binding_digest: "sha256:2",
      time_declaration_digest: "sha256:3",
      scheduler_state_refs: [],
      resource_budget_state_refs: [],
      capacity: 1,
      reserved: 0,
      in_flight: 0,
      last_transition_ref: "operation:configure",
      pacing_deviation_refs: [],
      evidence_refs: ["evidence:configure"],
    },
    controlActions: [],
    clockGeneration: 0,
    episode: null,
    episodeHistory: [],
    updatedAt: "2026-01-01T00:00:00.000000Z",
  };
}

describe("participant episodes against RAES's recorded answers (ADR-013, ADR-054 §4)", () => {
  it("initialize, reset, restart and terminate answer as RAES does, and each participant keeps its own history", async () => {
    const store = new MemoryControlPlaneStore();
    const participants = [...new Set(FIXTURE.steps.map((s) => s.participant).filter((p) => p !== ""))];
    for (const p of participants) assert.ok(await store.saveParticipantService(emptyRecord(p)));
    for (const step of FIXTURE.steps) {
      const r = step.request;
      const common = { participant: step.participant, operator: "alice" };
      const outcome = await controlEpisode(
        store,
        step.action === "terminate"
          ? {
              ...common,
              action: "terminate",
              terminalReason: r.terminal_reason as "interrupted",
              ...(r.detail ? { detail: r.detail } : {}),
            }
          : step.action === "initialize"
            ? { ...common, action: "initialize" }
            : { ...common, action: step.action, ...(r.reason ? { reason: r.reason } : {}) },
      );
      const label = `${step.action} ${step.participant}`;
      if (step.participant === "") {
        // raes-ts knows no service for an empty address: refused before RAES's own check, still nothing written.
        assert.equal(outcome.ok, false, label);
        continue;
      }
      assert.equal(outcome.ok, step.success, label);
      if (!outcome.ok)
        assert.deepEqual([outcome.code, outcome.message], [step.codes[0], step.messages[0]], label);
    }
    for (const p of participants) {
      const record = await store.getParticipantService(p);
      const { initialized_at: _i, updated_at: _u, terminated_at, ...state } = record?.episode ?? {};
      assert.deepEqual({ ...state, terminated: terminated_at != null }, FIXTURE.states[p], p);
      assert.deepEqual(
        record?.episodeHistory.map(({ timestamp: _t, ...event }) => event),
        FIXTURE.histories[p],
        p,
      );
    }
    // Refusals wrote nothing: one decision per successful control.
    const successes = FIXTURE.steps.filter((s) => s.success).length;
    assert.equal((await store.getDecisionHead()).decisions, successes);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  abandonedDrain,
  controlTransition,
  drainingState,
  EXECUTION_SERVICE_STATE_SCHEMA,
  type ExecutionControlAction,
  type ExecutionLifecycle,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
} from "../../../src/records/index.js";
import { ROOT } from "../../helpers/example.js";

// Recorded from RAES by tools/record-raes-control.py (RAES_PY=<RAES checkout>).
const FIXTURE = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "raes-control", "execution-control.json"), "utf8"),
) as {
  grid: {
    lifecycle: ExecutionLifecycle;
    generation: number;
    action: ExecutionControlAction;
    expected_generation: number;
    success: boolean;
    codes: string[];
    state: Record<string, unknown>;
  }[];
  sequence: {
    action: ExecutionControlAction;
    expected_generation: number;
    success: boolean;
    codes: string[];
    state: Record<string, unknown>;
  }[];
};
const READBACK = [
  "desired_lifecycle",
  "observed_lifecycle",
  "generation",
  "observed_generation",
  "readiness",
  "accepting_new_work",
  "draining",
  "quiescent",
  "resources_released",
  "reserved",
  "in_flight",
] as const;

function state(lifecycle: ExecutionLifecycle, generation: number): ParticipantExecutionServiceState {
  const ready = lifecycle === "running";
  return {
    schema_version: EXECUTION_SERVICE_STATE_SCHEMA,
    execution_scope_ref: "scope",
    policy_address: "policy",
    desired_lifecycle: lifecycle,
    observed_lifecycle: lifecycle,
    generation,
    observed_generation: generation,
    health: "healthy",
    readiness: ready ? "ready" : "not_ready",
    accepting_new_work: ready,
    draining: false,
    quiescent: true,
    resources_released: lifecycle === "terminated",
    policy_digest: "sha256:1",
    binding_digest: "sha256:2",
    time_declaration_digest: "sha256:3",
    scheduler_state_refs: [],
    resource_budget_state_refs: [],
    capacity: 2,
    reserved: 0,
    in_flight: 0,
    last_transition_ref: "operation:scope:configure:revision-1",
    pacing_deviation_refs: [],
    evidence_refs: ["evidence:scope:configure:revision-1"],
  };
}

const readback = (s: ParticipantExecutionServiceState) => Object.fromEntries(READBACK.map((k) => [k, s[k]]));

describe("execution control transitions against RAES's recorded answers", () => {
  it(`agrees with RAES on every lifecycle x action x fence (${FIXTURE.grid.length} cases): success, code and readback`, () => {
    for (const row of FIXTURE.grid) {
      const before = state(row.lifecycle, row.generation);
      const step = controlTransition(before, row.action, row.expected_generation, 2);
      const label = `${row.action} on ${row.lifecycle} expecting ${row.expected_generation}`;
      assert.equal(step.ok, row.success, label);
      if (step.ok) assert.deepEqual(readback(step.value), row.state, label);
      else assert.deepEqual([step.code], row.codes, label);
    }
  });

  it("walks RAES's issue-898 sequence to the same states, refusing the stale and invalid steps alike", () => {
    let current = state("stopped", 0);
    let revision = 1;
    for (const row of FIXTURE.sequence) {
      const step = controlTransition(current, row.action, row.expected_generation, revision + 1);
      assert.equal(step.ok, row.success, `${row.action} expecting ${row.expected_generation}`);
      if (step.ok) {
        current = step.value;
        revision += 1;
        // RAES accepts a control only when the readback shows a new transition and new evidence.
        assert.notEqual(current.last_transition_ref, `operation:scope:configure:revision-1`);
      } else assert.deepEqual([step.code], row.codes);
      assert.deepEqual(readback(current), row.state);
    }
  });
});

describe("a drain nobody finished (its process ended while it waited)", () => {
  const record = (service: ParticipantExecutionServiceState): ParticipantServiceRecord => ({
    participantAddress: "participant.behavior.p",
    revision: 4,
    service,
    controlActions: [],
    clockGeneration: 1,
    episode: null,
    episodeHistory: [],
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  const until = new Date(Date.UTC(2026, 0, 1, 0, 0, 30));

  for (const from of ["running", "paused"] as const) {
    it(`is put back ${from}, as it drained from, once its deadline is a grace second past`, () => {
      const step = drainingState(state(from, 3), 3, 5, 1, until);
      assert.ok(step.ok);
      const draining = record(step.value);
      assert.equal(abandonedDrain(draining, until.getTime() + 1000), undefined, "still within its grace");
      const back = abandonedDrain(draining, until.getTime() + 1001);
      assert.equal(back?.revision, 5);
      assert.deepEqual(
        READBACK.map((k) => back?.service[k]),
        READBACK.map((k) => state(from, 3)[k]),
      );
      assert.equal(back?.service.last_transition_ref, "operation:scope:drain-abandoned:revision-5");
    });
  }

  it("leaves every other lifecycle, and a draining record that names no deadline, as it is", () => {
    const step = drainingState(state("running", 3), 3, 5, 1, until);
    assert.ok(step.ok);
    const unnamed = { ...step.value, last_transition_ref: "operation:scope:draining:revision-5" };
    assert.equal(abandonedDrain(record(unnamed), until.getTime() + 10 ** 9), undefined);
    assert.equal(abandonedDrain(record(state("running", 3)), until.getTime() + 10 ** 9), undefined);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  loadScenario,
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import type { InvocationToolActionPort } from "../../src/port/index.js";
import type { SchedulerRecord } from "../../src/store/index.js";
import { EXAMPLE_MANIFEST, ROOT } from "../helpers/example.js";
import { compileFile, V2_MANIFEST } from "./v2/trace.js";

/** RAES's answers recorded by tools/record-raes-outcomes.py. */
const FIXTURES = join(ROOT, "test", "fixtures", "raes-outcomes");

interface Operation {
  readonly op: "apply" | "advance";
  readonly success: boolean;
  readonly calls: readonly { action_instance_id: string; status: string }[];
  readonly held: { clock: { tick: number }; scheduler: Record<string, unknown> };
}
interface Case {
  readonly case: string;
  readonly scenario: string;
  readonly verdict: "valid" | "invalid";
  readonly issues?: readonly { message: string }[];
  readonly public_seed: string | null;
  readonly fail_every: number;
  readonly status: "failed" | "partial_success";
  readonly operations: readonly Operation[];
}

function fixture(name: string): Case {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Case;
}

function scenarioPath(c: Case): string {
  return c.scenario.endsWith(".sdl.yaml") && !c.scenario.includes("/")
    ? join(FIXTURES, c.scenario)
    : join(ROOT, c.scenario);
}

/** Native call n ends with `status` when n % every == 0, as the recorder's RAES runtime does. */
class NthNotSucceeded extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  calls = 0;
  constructor(
    readonly every: number,
    readonly status: "failed" | "partial_success",
  ) {
    super();
  }
  /** Claims the composition; this harness makes no tool calls. */
  attachInvocationToolActions(_port: InvocationToolActionPort): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.calls += 1;
    const hit = this.every > 0 && this.calls % this.every === 0;
    const outcome: NativeOutcome = !hit
      ? { status: "succeeded" }
      : this.status === "failed"
        ? { status: "failed", failureClass: "target_unavailable" }
        : { status: "partial_success" };
    return this.nativeExecution(request, snapshot, context.episodeId, outcome);
  }
}

interface Ran {
  readonly calls: { action_instance_id: string; status: string }[][];
  readonly schedulers: SchedulerRecord[];
}

/** Runs the case in raes-ts: open (RAES's apply), then one step per recorded advance. */
async function run(c: Case, advances = c.operations.length - 1): Promise<Ran> {
  const v2 = c.public_seed !== null;
  const calls: { action_instance_id: string; status: string }[][] = [[]];
  const schedulers: SchedulerRecord[] = [];
  const manager = await RuntimeManager.open({
    model: compileFile(scenarioPath(c)),
    manifest: JSON.parse(readFileSync(v2 ? V2_MANIFEST : EXAMPLE_MANIFEST, "utf8")),
    runtime: new NthNotSucceeded(c.fail_every, c.status),
    ...(v2
      ? {
          stochasticControls: [
            {
              controlId: "green-activity-policy",
              namespace: "green-activity",
              publicSeed: c.public_seed ?? "",
            },
          ],
        }
      : {}),
    observer: {
      invocationClosed: (s) =>
        calls.at(-1)?.push({ action_instance_id: s.invocationId, status: s.outerStatus ?? "none" }),
    },
  });
  try {
    schedulers.push(...manager.schedulers());
    for (let i = 0; i < advances; i += 1) {
      calls.push([]);
      await manager.step(1);
      schedulers.push(...manager.schedulers());
    }
  } finally {
    await manager.close();
  }
  return { calls, schedulers };
}

/** RAES's scheduler state fields a raes-ts record can be compared on. */
function heldOf(record: SchedulerRecord | undefined): Record<string, unknown> {
  const c = record?.activity;
  if (!c) return { attempted_actions: record?.attempts, lifecycle_state: record?.lifecycle };
  return {
    lifecycle_state: c.lifecycle_state,
    attempted_actions: c.attempted_actions,
    succeeded_actions: c.succeeded_actions,
    failed_actions: c.failed_actions,
    next_tick: c.next_tick,
    last_action_instance_id: c.last_action_instance_id,
    occurrence_ordinal: c.occurrence_ordinal,
    current_retry: c.current_retry,
    completed_candidate_ids: c.completed_candidate_ids,
  };
}

function raesHeld(op: Operation | undefined, v2: boolean): Record<string, unknown> {
  const s = op?.held.scheduler ?? {};
  if (!v2) return { attempted_actions: s.attempted_actions, lifecycle_state: s.lifecycle_state };
  const { time_segment: _t, ...rest } = s;
  return Object.fromEntries(
    Object.keys(heldOf({ activity: {} } as SchedulerRecord)).map((k) => [k, rest[k]]),
  );
}

describe("raes-ts against RAES when an autonomous action does not succeed", () => {
  it("partial_success counts as a failure, never retried (v2: continuation counts equal RAES's after every advance)", async () => {
    const c = fixture("v2-partial");
    const ran = await run(c);
    c.operations.forEach((op, i) => {
      assert.deepEqual(ran.calls[i], op.calls, `operation ${i}`);
      assert.deepEqual(heldOf(ran.schedulers[i]), raesHeld(op, true), `state after operation ${i}`);
    });
    assert.ok(c.operations.some((op) => op.calls.some((call) => call.status === "partial_success")));
  });

  it("partial_success under failure_policy continue (v1): the same attempts and bound as RAES", async () => {
    const c = fixture("v1-continue-partial");
    const ran = await run(c);
    c.operations.forEach((op, i) => {
      assert.deepEqual(ran.calls[i], op.calls, `operation ${i}`);
      assert.deepEqual(heldOf(ran.schedulers[i]), raesHeld(op, false), `state after operation ${i}`);
    });
  });

  for (const name of ["v1-stop-failed", "v1-stop-partial", "v2-stop-failed"]) {
    it(`${name}: failure_policy stop ends where RAES's advance fails; raes-ts keeps what ran and stops`, async () => {
      const c = fixture(name);
      const failedAt = c.operations.findIndex((op) => !op.success);
      assert.ok(failedAt > 0, "RAES failed an advance");
      const ran = await run(c, failedAt + 3);
      // Up to and including the failing advance, raes-ts makes exactly RAES's native calls.
      for (let i = 0; i <= failedAt; i += 1)
        assert.deepEqual(ran.calls[i], c.operations[i]?.calls, `operation ${i}`);
      for (let i = 0; i < failedAt; i += 1)
        assert.deepEqual(
          heldOf(ran.schedulers[i]),
          raesHeld(c.operations[i], c.public_seed !== null),
          `state after operation ${i}`,
        );
      // RAES rolls the failing advance back (clock and scheduler as before it) and runs the same attempt
      // ids again at the next advance. Those calls already had their effects and are committed in raes-ts,
      // so it cannot roll back: the scheduler stops (failure_policy) and runs nothing more until resumed.
      const failing = c.operations[failedAt];
      assert.deepEqual(
        raesHeld(failing, c.public_seed !== null),
        raesHeld(c.operations[failedAt - 1], c.public_seed !== null),
      );
      assert.deepEqual(
        c.operations[failedAt + 1]?.calls.map((x) => x.action_instance_id).slice(0, failing?.calls.length),
        failing?.calls.map((x) => x.action_instance_id),
      );
      const after = ran.schedulers[failedAt];
      assert.equal(after?.lifecycle, "stopped");
      assert.equal(after?.stopReason, "failure_policy");
      if (c.public_seed !== null) assert.equal(after?.activity?.lifecycle_state, "failed");
      assert.deepEqual(ran.calls.slice(failedAt + 1), [[], [], []]);
    });
  }

  it("a v1 cadence whose period is not a multiple of step_ticks is invalid in both (participant.autonomous-cadence-unreachable)", () => {
    const c = fixture("v1-cadence-15");
    assert.equal(c.verdict, "invalid");
    assert.match(c.issues?.[0]?.message ?? "", /cadence points are unreachable by stepped progression/);
    const { diagnostics } = loadScenario(scenarioPath(c));
    const errors = diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
    assert.deepEqual(errors, ["participant.autonomous-cadence-unreachable"]);
  });
});

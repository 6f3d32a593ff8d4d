import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { RuntimeErrorCode } from "../../../src/runtime/index.js";
import { ROOT } from "../../helpers/example.js";
import { EveryKthFails, v2Manifest } from "./harness.js";
import { compileFile, V2_EXAMPLE } from "./trace.js";

/** RAES's answers recorded by tools/record-raes-harness-errors.py. */
const FIXTURE = join(ROOT, "test", "fixtures", "raes-outcomes", "v2-harness-error.json");
const STOP_SCENARIO = join(ROOT, "test", "fixtures", "v2-traces", "stop.sdl.yaml");
const P = "participant.behavior.participant-agent";

interface Operation {
  readonly op: string;
  readonly success: boolean;
  readonly raised: string | null;
  readonly codes: readonly string[];
  readonly calls: readonly { action_instance_id: string; status: string }[];
}
interface Case {
  readonly failure_policy: string;
  readonly mode: "raise" | "invalid";
  readonly at: number;
  readonly public_seed: string;
  readonly operations: readonly Operation[];
}
const cases = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, Case>;

/** The seed-42 harness with native call `at` throwing (or answering an invalid result). */
class FaultyAt extends EveryKthFails {
  constructor(
    readonly at: number,
    readonly mode: "raise" | "invalid",
    forced: ReadonlySet<string> = new Set(),
  ) {
    super(0, "target_unavailable", forced);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    if (this.calls + 1 === this.at) {
      this.calls += 1;
      if (this.mode === "raise") throw new Error("harness error");
      return { not: "a result" } as unknown as ParticipantActionResult;
    }
    return super.modelAction(request, snapshot, context);
  }
}

async function open(scenario: string, runtime: EveryKthFails, calls: string[][]) {
  return RuntimeManager.open({
    model: compileFile(scenario),
    manifest: v2Manifest(),
    runtime,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
    log: () => undefined,
    observer: { invocationClosed: (s) => calls.at(-1)?.push(s.invocationId) },
  });
}

describe("v2 harness errors (a harness that throws or answers an invalid result)", () => {
  it("RAES: failure_policy plays no part; a raise wedges the participant, an invalid result is rolled back", () => {
    for (const mode of ["raise", "invalid"] as const) {
      const cont = cases[`continue-${mode}`];
      const stop = cases[`stop-${mode}`];
      assert.equal(cont?.failure_policy, "continue");
      assert.equal(stop?.failure_policy, "stop");
      // The same calls, results and codes under both policies, advance for advance.
      assert.deepEqual(
        cont?.operations.map(({ success, raised, codes, calls }) => ({ success, raised, codes, calls })),
        stop?.operations.map(({ success, raised, codes, calls }) => ({ success, raised, codes, calls })),
        mode,
      );
    }
    const raised = cases["continue-raise"]?.operations ?? [];
    const at = raised.findIndex((o) => o.raised !== null);
    assert.equal(raised[at]?.raised, "RuntimeError", "the harness's exception escapes RAES's advance");
    for (const later of raised.slice(at + 1)) {
      assert.deepEqual(later.calls, [], "RAES never calls the participant again");
      assert.deepEqual(later.codes, ["runtime.participant-autonomous-cadence-missed"]);
    }
    const invalid = cases["continue-invalid"]?.operations ?? [];
    const bad = invalid.findIndex((o) => !o.success);
    assert.deepEqual(invalid[bad]?.codes, ["runtime.participant-autonomous-action-protocol-invalid"]);
    // Rolled back: the next advance runs the same attempt ids again (raes-ts cannot: its attempt is consumed).
    assert.deepEqual(
      invalid[bad + 1]?.calls.slice(0, 2).map((c) => c.action_instance_id),
      invalid[bad]?.calls.map((c) => c.action_instance_id),
    );
  });

  for (const [name, scenario] of [
    ["continue", V2_EXAMPLE],
    ["stop", STOP_SCENARIO],
  ] as const) {
    for (const mode of ["raise", "invalid"] as const) {
      it(`${name}/${mode}: RAES's calls up to the error, then the scheduler stops with reason harness_error`, async () => {
        const c = cases[`${name}-${mode}`];
        assert.ok(c);
        const calls: string[][] = [[]];
        const manager = await open(scenario, new FaultyAt(c.at, mode), calls);
        try {
          for (let i = 1; i < c.operations.length; i += 1) {
            calls.push([]);
            await manager.step(1);
          }
          const failedAt = c.operations.findIndex((o) => !o.success);
          for (let i = 0; i <= failedAt; i += 1)
            assert.deepEqual(
              calls[i],
              c.operations[i]?.calls.map((x) => x.action_instance_id),
              `operation ${i}`,
            );
          assert.deepEqual(calls.slice(failedAt + 1).flat(), [], "nothing runs while stopped");
          const [scheduler] = manager.schedulers();
          assert.equal(scheduler?.lifecycle, "stopped");
          assert.equal(scheduler?.stopReason, "harness_error", "the truthful reason, not failure_policy");
          // The attempt is consumed as a crash consumes it: `continue` goes on, `stop` ends failed.
          assert.equal(scheduler?.activity?.lifecycle_state, name === "continue" ? "running" : "failed");
        } finally {
          await manager.close();
        }
      });
    }
  }

  it("continue: resume runs it again, exactly as after a crash that consumed the attempt", async () => {
    const calls: string[][] = [[]];
    const manager = await open(V2_EXAMPLE, new FaultyAt(2, "raise"), calls);
    let failedId: string | undefined;
    try {
      while (manager.schedulers()[0]?.lifecycle === "running") {
        calls.push([]);
        await manager.step(1);
      }
      failedId = calls.flat()[1];
      await manager.resumeParticipant(P);
      assert.equal(manager.schedulers()[0]?.lifecycle, "running");
      assert.equal(manager.schedulers()[0]?.stopReason, undefined);
      await manager.step(30);
    } finally {
      await manager.close();
    }
    assert.ok(failedId);
    // The reference: the same run where that attempt failed non-retryably and nothing stopped.
    const reference: string[][] = [[]];
    const plain = await open(V2_EXAMPLE, new FaultyAt(0, "raise", new Set([failedId])), reference);
    try {
      await plain.step(calls.length - 1 + 30);
    } finally {
      await plain.close();
    }
    assert.ok(calls.flat().length > 3, "the resumed participant made further attempts");
    assert.deepEqual(calls.flat(), reference.flat());
  });

  it("stop: resume is refused with state_conflict (only a reset starts it again); failure_policy stop too", async () => {
    for (const runtime of [new FaultyAt(2, "raise"), new EveryKthFails(7, "target_unavailable")]) {
      const calls: string[][] = [[]];
      const manager = await open(STOP_SCENARIO, runtime, calls);
      try {
        for (let i = 0; i < 30 && manager.schedulers()[0]?.lifecycle === "running"; i += 1)
          await manager.step(1);
        const before = manager.schedulers()[0];
        assert.equal(before?.lifecycle, "stopped");
        assert.equal(before?.activity?.lifecycle_state, "failed");
        await assert.rejects(manager.resumeParticipant(P), {
          code: RuntimeErrorCode.scheduler_not_resumable,
        });
        assert.equal(RuntimeErrorCode.scheduler_not_resumable, "runtime.scheduler-not-resumable");
        assert.deepEqual(manager.schedulers()[0], before, "a refused resume changes nothing");
        const made = calls.flat().length;
        await manager.step(5);
        assert.equal(calls.flat().length, made);
        // A reset starts a new segment with a fresh continuation; then resume lets it run.
        await manager.reset();
        await manager.resumeParticipant(P);
        await manager.step(10);
        assert.ok(calls.flat().length > made, "after a reset and resume it runs");
      } finally {
        await manager.close();
      }
    }
  });

  it("resuming a participant that is not stopped changes nothing", async () => {
    const manager = await open(V2_EXAMPLE, new FaultyAt(0, "raise"), [[]]);
    try {
      await manager.step(3);
      const before = manager.schedulers()[0];
      assert.equal(before?.lifecycle, "running");
      await manager.resumeParticipant(P);
      assert.deepEqual(manager.schedulers()[0], before);
      assert.deepEqual(await manager.store.getScheduler(P, before?.policyAddress ?? ""), before);
    } finally {
      await manager.close();
    }
  });
});

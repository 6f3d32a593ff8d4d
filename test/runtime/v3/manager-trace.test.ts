import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  firstV3Difference,
  readV3Trace,
  V3_CONFORMANCE,
  V3_TRACES,
  type V3Line,
  v3Model,
  v3TraceOfRun,
} from "./harness.js";

const seed = (byte: string) => byte.repeat(32);

/** RAES's lines up to and including its first throttle (all of them when it never throttles). */
function upToFirstThrottle(lines: readonly V3Line[]): V3Line[] {
  const first = lines.findIndex((l) => l.kind === "throttle");
  return lines.slice(0, first < 0 ? lines.length : first + 1);
}

/** RAES's lines before its first throttle point: the advance it refuses runs none of its attempts for good. */
function beforeFirstThrottle(lines: readonly V3Line[]): V3Line[] {
  const first = lines.findIndex((l) => l.kind === "throttle");
  return first < 0 ? [...lines] : lines.slice(0, first);
}

describe("RuntimeManager runs v3 as RAES, up to RAES's first throttle", () => {
  it("reproduces the shared v3 trace attempt for attempt up to its first throttle point", async () => {
    const expected = readV3Trace(join(V3_CONFORMANCE, "trace-example.jsonl"));
    const { lines, runtime, advances } = await v3TraceOfRun({
      model: v3Model(),
      seed: seed("42"),
      steps: 60,
      failEvery: 3,
      measure: { tokens: 450 },
      resetAt: [45],
    });
    // 22 committed attempts (advances 3–36), then advance 40's two attempts before RAES throttles the third.
    const before = beforeFirstThrottle(expected);
    assert.equal(before.length, 24);
    assert.equal(firstV3Difference(lines.slice(0, before.length), before), undefined);
    // At RAES's throttle point (tick 400) raes-ts opens a new 100-tick window for participant-actions
    // (DESIGN §15): the third attempt runs. RAES refuses the advance and re-runs the same ids.
    const point = expected[before.length];
    assert.equal(point?.kind, "throttle");
    assert.equal(point?.throttle?.budget_id, "participant-actions");
    const next = lines[before.length];
    assert.equal(next?.kind, "attempt");
    assert.equal(next?.action_instance_id, point?.action_instance_id);
    // After it: no action reaches the native runtime twice, and every advance commits.
    assert.equal(new Set(runtime.seen).size, runtime.seen.length);
    assert.deepEqual(advances, Array(60).fill(1));
    assert.equal(runtime.seen.length, lines.filter((l) => l.kind === "attempt").length);
    for (const l of lines) if (l.kind === "attempt") assert.equal(l.resource_result, "committed");
  });

  it("reproduces a run-budget throttle (images, limit 5) through RAES's first throttle, then holds back only that attempt", async () => {
    const expected = readV3Trace(join(V3_TRACES, "images-throttle-seed42.jsonl"));
    const { lines, runtime, advances } = await v3TraceOfRun({
      model: v3Model(join(V3_TRACES, "images-run-limit.sdl.yaml")),
      seed: seed("42"),
      steps: 40,
      failEvery: 3,
    });
    const through = upToFirstThrottle(expected);
    assert.equal(through.at(-1)?.kind, "throttle");
    assert.equal(firstV3Difference(lines.slice(0, through.length), through), undefined);
    // The spec's rule after it: the held-back attempt is due again at each next tick, never run, every
    // advance commits, and nothing reaches the native runtime twice.
    const after = lines.slice(through.length);
    assert.ok(after.length > 0);
    for (const l of after) {
      assert.equal(l.kind, "throttle");
      assert.equal(l.action_instance_id, through.at(-1)?.action_instance_id);
      assert.equal(l.throttle?.budget_id, "images");
    }
    assert.equal(runtime.seen.length, 5);
    assert.equal(new Set(runtime.seen).size, 5);
    assert.deepEqual(advances, Array(40).fill(1));
  });

  it("reproduces a shared-pool throttle (protected capacity) through RAES's first throttle", async () => {
    const expected = readV3Trace(join(V3_TRACES, "pool-protected-seed42.jsonl"));
    const { lines, runtime, advances } = await v3TraceOfRun({
      model: v3Model(),
      manifest: JSON.parse(readFileSync(join(V3_TRACES, "images-protected-pool.manifest.json"), "utf8")),
      seed: seed("42"),
      steps: 30,
      failEvery: 3,
    });
    const through = upToFirstThrottle(expected);
    assert.equal(through.at(-1)?.throttle?.capacity_kind, "shared pool");
    assert.equal(firstV3Difference(lines.slice(0, through.length), through), undefined);
    assert.equal(new Set(runtime.seen).size, runtime.seen.length);
    assert.deepEqual(advances, Array(30).fill(1));
  });

  it("reproduces a reset: time_segment budgets clear, run and reconciled budgets keep their totals", async () => {
    const expected = readV3Trace(join(V3_TRACES, "reset15-seed01.jsonl"));
    assert.ok(expected.every((l) => l.kind === "attempt"));
    const { lines } = await v3TraceOfRun({
      model: v3Model(),
      seed: seed("01"),
      steps: 35,
      failEvery: 4,
      measure: { tokens: 300, storage: 1024 },
      resetAt: [15],
    });
    assert.equal(firstV3Difference(lines, expected), undefined);
    const afterReset = lines.find((l) => l.segment === 1);
    assert.equal(afterReset?.budgets["participant-actions"]?.cumulative_use, 1);
    assert.equal(afterReset?.budgets.images?.cumulative_use, 9);
    assert.equal(afterReset?.budgets.images?.generation, 1);
  });
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../helpers/example.js";
import { firstDifference, traceOfRun } from "./harness.js";
import { compileFile, readTrace, V2_EXAMPLE, V2_FIXTURES } from "./trace.js";

describe("RuntimeManager runs v2 draw for draw as RAES", () => {
  it("reproduces trace-seed42-fail3.jsonl line for line", async () => {
    const got = await traceOfRun({
      model: compileFile(V2_EXAMPLE),
      seed: "42".repeat(32),
      steps: 60,
      failEvery: 3,
    });
    const expected = readTrace(join(V2_FIXTURES, "trace-seed42-fail3.jsonl"));
    assert.equal(firstDifference(got, expected), undefined);
    assert.equal(got.length, 36);
  });
});

const RECORDED = join(ROOT, "test", "fixtures", "v2-traces");
const EXAMPLE = V2_EXAMPLE;
const crafted = (name: string) => join(RECORDED, `${name}.sdl.yaml`);
const seed = (byte: string) => byte.repeat(32);

/** Traces recorded with raes_v2_trace.py (see test/fixtures/v2-traces/README.md), with the arguments used. */
const RUNS = [
  { trace: "seed01-nofail", scenario: EXAMPLE, seed: seed("01"), steps: 60, failEvery: 0 },
  {
    trace: "seed7f-fail2-reset25",
    scenario: EXAMPLE,
    seed: seed("7f"),
    steps: 70,
    failEvery: 2,
    resetAt: [25],
  },
  {
    trace: "seedaa-fail4-backend",
    scenario: EXAMPLE,
    seed: seed("aa"),
    namespace: "other-ns",
    steps: 60,
    failEvery: 4,
    failClass: "backend_error",
  },
  {
    trace: "skip-complete-seed13",
    scenario: crafted("skip-complete"),
    seed: seed("13"),
    steps: 60,
    failEvery: 5,
  },
  {
    trace: "windows-bursts-seed99-reset",
    scenario: crafted("windows-bursts"),
    seed: seed("99"),
    steps: 75,
    failEvery: 3,
    resetAt: [15, 40],
  },
  {
    trace: "two-participants-seed3e",
    scenario: crafted("two-participants"),
    seed: seed("3e"),
    steps: 60,
    failEvery: 3,
    resetAt: [30],
  },
] as const;

describe("RuntimeManager reproduces traces recorded with RAES", () => {
  for (const run of RUNS) {
    it(run.trace, async () => {
      const got = await traceOfRun({ ...run, model: compileFile(run.scenario) });
      const expected = readTrace(join(RECORDED, `${run.trace}.jsonl`));
      assert.ok(expected.length > 0);
      assert.equal(firstDifference(got, expected), undefined);
    });
  }

  it("stop-seed5c: RAES's trace up to the failure, then failure_policy stop fails the continuation", async () => {
    const got = await traceOfRun({
      model: compileFile(crafted("stop")),
      seed: seed("5c"),
      steps: 60,
      failEvery: 7,
    });
    const expected = readTrace(join(RECORDED, "stop-seed5c.jsonl"));
    // RAES's apply fails at the stopping attempt and rolls the whole advance back (its trace ends
    // before step 20); raes-ts commits each attempt, so step 20's attempts are kept, the last one failed.
    assert.equal(firstDifference(got.slice(0, expected.length), expected), undefined);
    const extra = got.slice(expected.length);
    assert.ok(extra.length > 0);
    assert.ok(extra.every((line) => line.step === 20));
    const last = extra.at(-1);
    assert.equal(last?.result.status, "failed");
    assert.equal(last?.after.lifecycle_state, "failed");
  });
});

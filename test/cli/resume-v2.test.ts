import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { V2_EXAMPLE, V2_MANIFEST } from "../runtime/v2/trace.js";
import { raes } from "./cli.js";

const RUNTIME = join(ROOT, "test", "fixtures", "runtimes", "every-kth.ts");
const STOP_SCENARIO = join(ROOT, "test", "fixtures", "v2-traces", "stop.sdl.yaml");
const P = "participant.behavior.participant-agent";
const POLICY = "participant.autonomous-execution.participant-behavior";
const CONTROL = `green-activity-policy=green-activity:${"42".repeat(32)}`;
const storeUrl = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "raes-resume-v2-")), "cp.db")}`;

function runArgs(store: string, steps: number, scenario = V2_EXAMPLE, control = CONTROL): string[] {
  return [
    "run",
    scenario,
    "--manifest",
    V2_MANIFEST,
    "--runtime",
    RUNTIME,
    "--store",
    store,
    "--steps",
    String(steps),
    "--stochastic-control",
    control,
  ];
}

const IDLE = /^nothing left to run: every scheduler is stopped or completed \(1 stopped, 0 completed\)$/m;

describe("raes run / resume after a v2 harness error", () => {
  it("continue: the run stops with harness_error (exit 1), later runs say so, resume truly resumes", async () => {
    const store = storeUrl();
    const first = await raes(runArgs(store, 10), { env: { RAES_TEST_THROW_AT: "2" } });
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /:retry=0 failed: harness error$/m);
    assert.match(first.stdout, new RegExp(`^stopped: ${P.replace(/\./g, "\\.")} \\(harness_error\\)$`, "m"));
    assert.match(first.stdout, IDLE);
    // Before the resume, a run is not silent: nothing runs, and it says why.
    const idle = await raes([...runArgs(store, 5), "--json"]);
    assert.equal(idle.code, 1, idle.stderr);
    const summary = JSON.parse(idle.stdout);
    assert.equal(summary.invocations, 0);
    assert.deepEqual(summary.stopped, [{ participant: P, reason: "harness_error" }]);
    assert.match(summary.idle, /every scheduler is stopped or completed/);
    const resumed = await raes(["resume", P, "--store", store, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(JSON.parse(resumed.stdout), { resumed: [POLICY] });
    const again = await raes(["resume", P, "--store", store]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `${P} was not stopped (running); nothing to resume\n`);
    const againJson = await raes(["resume", P, "--store", store, "--json"]);
    assert.deepEqual(JSON.parse(againJson.stdout), { not_stopped: { [POLICY]: "running" } });
    const next = await raes([...runArgs(store, 20), "--json"]);
    assert.equal(next.code, 0, next.stderr);
    const after = JSON.parse(next.stdout);
    assert.ok(after.invocations > 0, "the resumed participant runs");
    assert.deepEqual(after.stopped, []);
    assert.equal(after.idle, undefined);
  });

  it("stop: resume is refused with state_conflict (exit 1) and the scheduler stays stopped", async () => {
    const store = storeUrl();
    const first = await raes(runArgs(store, 10, STOP_SCENARIO), { env: { RAES_TEST_THROW_AT: "2" } });
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stdout, /\(harness_error\)$/m);
    const refused = await raes(["resume", P, "--store", store]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^raes: runtime\.scheduler-not-resumable: participant\.behavior\.participant-agent cannot be resumed$/m,
    );
    assert.match(
      refused.stderr,
      /v2 continuation ended failed \(harness_error\); only a reset starts it again/,
    );
    const json = await raes(["resume", P, "--store", store, "--json"]);
    assert.equal(JSON.parse(json.stdout).error, "runtime.scheduler-not-resumable");
    const idle = await raes(runArgs(store, 3, STOP_SCENARIO));
    assert.match(idle.stdout, IDLE);
    assert.match(idle.stdout, /^invocations 0 /m);
  });

  it("reopening a run with another namespace or seed is refused at open; the same control is accepted", async () => {
    const store = storeUrl();
    const first = await raes(runArgs(store, 5));
    assert.equal(first.code, 0, first.stderr);
    const otherSeed = "a1".repeat(32);
    for (const control of [
      `green-activity-policy=green-activity:${otherSeed}`,
      `green-activity-policy=other-ns:${"42".repeat(32)}`,
    ]) {
      const refused = await raes(runArgs(store, 5, V2_EXAMPLE, control));
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /^raes: runtime\.participant-autonomous-state-conflict: /m);
      assert.match(refused.stderr, /started under another stochastic control/);
      assert.ok(!refused.stderr.includes(otherSeed), "the refusal does not echo the seed");
    }
    const same = await raes([...runArgs(store, 5), "--json"]);
    assert.equal(same.code, 0, same.stderr);
  });
});

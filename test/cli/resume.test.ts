import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/index.js";
import type { SchedulerRecord } from "../../src/store/index.js";
import { exampleRunArgs, raes } from "./cli.js";

const P = "participant.behavior.participant-agent";
const POLICY = "participant.autonomous-execution.participant-behavior";

/** A v1 store whose scheduler stopped on its last attempt (the example allows 2). */
async function stoppedOnLastAttempt(bound: boolean): Promise<string> {
  const store = `sqlite:${join(mkdtempSync(join(tmpdir(), "raes-resume-v1-")), "cp.db")}`;
  const run = await raes(exampleRunArgs(store, "--steps", "5"));
  assert.equal(run.code, 0, run.stderr);
  const s = await openControlPlaneStore(store);
  try {
    const record = await s.getScheduler(P, POLICY);
    assert.equal(record?.lifecycle, "completed");
    assert.equal(record?.attempts, 2);
    assert.equal(record?.maxActionAttempts, 2, "the record carries the policy's attempt bound");
    const { maxActionAttempts: _m, ...old } = record as SchedulerRecord;
    await s.saveScheduler({
      ...(bound ? record : old),
      lifecycle: "stopped",
      stopReason: "failure_policy",
    } as SchedulerRecord);
  } finally {
    await s.close();
  }
  return store;
}

describe("raes resume knows the v1 attempt bound without a manager", () => {
  it("a scheduler stopped on its last attempt resumes as completed (exit 0); asked again, it says it was not stopped", async () => {
    const store = await stoppedOnLastAttempt(true);
    const resumed = await raes(["resume", P, "--store", store, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(JSON.parse(resumed.stdout), { resumed: [], completed: [POLICY] });
    const text = await raes(["resume", P, "--store", store]);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, `${P} was not stopped (completed); nothing to resume\n`);
  });

  it("a row without the bound (before schema step 7) resumes as running; the next run completes it and says so", async () => {
    const store = await stoppedOnLastAttempt(false);
    const resumed = await raes(["resume", P, "--store", store, "--json"]);
    assert.deepEqual(JSON.parse(resumed.stdout), { resumed: [POLICY] });
    const run = await raes(exampleRunArgs(store, "--json"));
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.invocations, 0);
    assert.equal(
      summary.idle,
      "nothing left to run: every scheduler is stopped or completed (0 stopped, 1 completed)",
    );
  });
});

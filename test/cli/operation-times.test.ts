import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runScriptedTimes, SCRIPTED_TIMES as T } from "../runtime/record-times.js";
import { raes } from "./cli.js";

const INVOCATION =
  "participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:0";

describe("raes operation: record times and durations", async () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-operation-times-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const store = `sqlite:${join(dir, "cp.db")}`;
  await (await runScriptedTimes(store)).close();

  it("--json gives a tool action's admitted_at, dispatched_at and settled_at", async () => {
    const run = await raes(["operation", `${INVOCATION}:tool=1`, "--store", store, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const wire = JSON.parse(run.stdout);
    assert.deepEqual(
      [wire.admitted_at, wire.dispatched_at, wire.settled_at],
      [T.aAdmitted, T.aDispatched, T.aSettled],
    );
    const withheld = JSON.parse(
      (await raes(["operation", `${INVOCATION}:tool=2`, "--store", store, "--json"])).stdout,
    );
    assert.deepEqual(
      [withheld.admitted_at, withheld.dispatched_at, withheld.settled_at],
      [T.bAdmitted, null, T.bSettled],
    );
  });

  it("prints the times with the durations between them", async () => {
    const tool = await raes(["operation", `${INVOCATION}:tool=1`, "--store", store]);
    assert.equal(tool.code, 0, tool.stderr);
    assert.match(tool.stdout, new RegExp(`^admitted_at +${T.aAdmitted}$`, "m"));
    assert.match(tool.stdout, /^admitted → dispatched +2\.0 ms$/m);
    assert.match(tool.stdout, /^dispatched → settled +10 ms$/m);
    assert.match(tool.stdout, /^admitted → settled +12 ms$/m);
    const outer = await raes(["operation", INVOCATION, "--store", store]);
    assert.equal(outer.code, 0, outer.stderr);
    assert.match(outer.stdout, new RegExp(`^started_at +${T.started}$`, "m"));
    assert.match(outer.stdout, new RegExp(`^ended_at +${T.ended}$`, "m"));
    assert.match(outer.stdout, /^started → ended +22 ms$/m);
  });
});

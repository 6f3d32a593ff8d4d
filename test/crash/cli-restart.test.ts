import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/index.js";
import { ChildScript } from "../helpers/child-process.js";
import { EXAMPLE, EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

const CLI = join(ROOT, "src", "cli", "main.ts");
const PROBE = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const FIRST = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;

describe("crash recovery through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-cli-crash-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("raes run restarted after a SIGKILL mid-invocation recovers the interrupted invocation from the SQLite store", async () => {
    const store = `sqlite:${join(dir, "cp.db")}`;
    const run = [
      "run",
      EXAMPLE_SCENARIO,
      "--manifest",
      EXAMPLE_MANIFEST,
      "--runtime",
      PROBE,
      "--store",
      store,
    ];
    const crashed = ChildScript.start(CLI, [...run, "--steps", "1"], { RAES_TEST_SLOW_MS: "600000" });
    try {
      await crashed.waitForStderr(`INVOKING ${FIRST}`);
    } finally {
      await crashed.stop();
    }
    assert.equal((await crashed.exited).signal, "SIGKILL");

    const restarted = ChildScript.start(CLI, [...run, "--steps", "1", "--json"]);
    const exit = await restarted.exited;
    const summary = JSON.parse(restarted.lines.join("\n")) as { stopped?: { reason: string | null }[] };
    const control = await openControlPlaneStore(store);
    try {
      const interrupted = await control.getInvocation(FIRST);
      assert.equal(
        interrupted?.state,
        "failed",
        `the restarted run left ${FIRST} ${interrupted?.state} (exit ${JSON.stringify(exit)}, summary ${JSON.stringify(summary)})`,
      );
      assert.equal((await control.getOperation(`${FIRST}:tool=1`))?.state, "indeterminate");
      assert.deepEqual(summary.stopped, [
        { participant: EXAMPLE.participant, reason: "tool_action_indeterminate" },
      ]);
      assert.equal(exit.code, 1, "an indeterminate action makes raes run exit with findings");
    } finally {
      await control.close();
    }
  });
});

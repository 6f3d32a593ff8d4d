import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/index.js";
import { raes } from "../cli/cli.js";
import { ChildScript } from "../helpers/child-process.js";
import { EXAMPLE, EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

const CLI = join(ROOT, "src", "cli", "main.ts");
const PROBE = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const FIRST = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;

/** `raes run` of the example with the probe runtime on `store` (the caller adds `--steps`). */
function exampleRun(store: string): string[] {
  return ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", PROBE, "--store", store];
}

describe("crash recovery through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-cli-crash-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("raes run restarted after a SIGKILL mid-invocation recovers the interrupted invocation from the SQLite store", async () => {
    const store = `sqlite:${join(dir, "cp.db")}`;
    const run = exampleRun(store);
    const crashed = ChildScript.start(CLI, [...run, "--steps", "1"], { RAES_TEST_SLOW_MS: "600000" });
    try {
      await crashed.waitForStderr(`INVOKING ${FIRST}`);
    } finally {
      await crashed.stop();
    }
    assert.equal((await crashed.exited).signal, "SIGKILL");

    // Before any recovery, read commands tell the truth about the dead runtime's work (and change nothing).
    const listed = await raes(["operations", "--state", "indeterminate", "--store", store, "--wide"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      new RegExp(
        `^\\S+ +tool_action +running \\(owner dead: pid ${crashed.pid} on this host; indeterminate on recovery\\) .*${FIRST}:tool=1`,
        "m",
      ),
    );
    // Within 120 columns: the state recovery gives it after an arrow, the owner in DETAIL.
    const narrow = await raes(["operations", "--state", "indeterminate", "--store", store]);
    assert.match(
      narrow.stdout,
      new RegExp(
        `^\\S+ \\S+ +tool_action +running → indeterminate +0:tool=1 +owner dead: pid ${crashed.pid} on this host$`,
        "m",
      ),
    );
    assert.match(listed.stderr, /1 operation is in doubt: .*`raes run` with the same scenario/);
    // A call that may have run needs a person after recovery: the hint names the listing that says so.
    assert.match(
      listed.stderr,
      / at its next session; then \S.* operations --needs-operator --store \S+ lists the tool action it marks indeterminate, each with its resolve commands$/m,
    );
    const one = JSON.parse(
      (await raes(["operation", `${FIRST}:tool=1`, "--store", store, "--json"])).stdout,
    ) as Record<string, unknown>;
    assert.equal(one.state, "running");
    assert.deepEqual(
      [(one.owner as { status: string; pid: number }).status, (one.owner as { pid: number }).pid],
      ["dead", crashed.pid],
    );
    assert.equal(one.on_recovery, "indeterminate");
    const invocations = await raes(["operations", "--kind", "scheduler_invocation", "--store", store]);
    assert.match(invocations.stdout, /^CREATED +KIND +STATE/m);
    assert.match(
      invocations.stdout,
      /scheduler_invocation +running → failed +\S+ +owner dead: pid \d+ on this host$/m,
    );
    // An invocation recovery fails needs nobody: no resolve is hinted.
    assert.match(invocations.stderr, /1 operation is in doubt: .* at its next session\n$/);
    // Resolving it before recovery is refused, and the refusal says how to get there.
    const early = await raes(["resolve", `${FIRST}:tool=1`, "--effect", "absent", "--store", store]);
    assert.equal(early.code, 1, early.stderr);
    assert.match(
      early.stderr,
      /still running: .*starting it again on this store \(`raes run` with the same scenario, or the host-mode `raes mcp-gateway` at its next session\) recovers it first/,
    );

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
      const recovered = JSON.parse(
        (await raes(["operation", `${FIRST}:tool=1`, "--store", store, "--json"])).stdout,
      ) as Record<string, unknown>;
      assert.equal(recovered.unknown_reason, "runtime_interrupted");
      assert.equal(recovered.settled_at, null, "nobody saw it settle");
      assert.ok(typeof recovered.dispatched_at === "string" && typeof recovered.recovered_at === "string");
      assert.ok((recovered.dispatched_at as string) < (recovered.recovered_at as string));
      assert.equal(recovered.owner, undefined, "a settled action has no owner to judge");
      assert.deepEqual(summary.stopped, [
        { participant: EXAMPLE.participant, reason: "tool_action_indeterminate" },
      ]);
      assert.equal(exit.code, 1, "an indeterminate action makes raes run exit with findings");
      // The restarted run says how many attempts the crash consumed.
      assert.match(
        restarted.stderr,
        new RegExp(
          `^raes run: recovered an interrupted run: 1 attempt was consumed by the crash or lost commit \\(never retried\\), 1 stopped its scheduler: ${FIRST.replace(/[.]/g, "\\.")}$`,
          "m",
        ),
      );
    } finally {
      await control.close();
    }
  });

  it("raes resume after a SIGKILLed raes run on this host takes the dead owner's lease at once", async () => {
    const store = `sqlite:${join(dir, "resume.db")}`;
    const run = exampleRun(store);
    const crashed = ChildScript.start(CLI, [...run, "--steps", "1"], {
      RAES_TEST_MODE: "unknown",
      RAES_TEST_HOLD_MS: "600000",
    });
    try {
      await crashed.waitForStderr(`SETTLED ${FIRST}:tool=1`);
    } finally {
      await crashed.stop();
    }
    assert.equal((await crashed.exited).signal, "SIGKILL");
    const resolved = await raes(["resolve", `${FIRST}:tool=1`, "--effect", "absent", "--store", store]);
    assert.equal(resolved.code, 0, resolved.stderr);
    // The default lease lives 30 s; the dead owner's lease must not make resume wait for it.
    const resumed = await raes(["resume", EXAMPLE.participant, "--store", store, "--json"]);
    assert.equal(resumed.code, 0, `${resumed.stdout}${resumed.stderr}`);
    // Not `runtime.participant-owned`: the lease was taken. The dead run never stopped the scheduler
    // (its next open recovers the invocation), so resume says so instead of "resumed".
    assert.deepEqual(JSON.parse(resumed.stdout), {
      not_stopped: { "participant.autonomous-execution.participant-behavior": "running" },
      interrupted: [FIRST],
    });
  });
});

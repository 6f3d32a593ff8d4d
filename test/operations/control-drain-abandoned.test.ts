import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import { controlParticipant } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { controlledManifest, EXAMPLE, modelWithAttempts, ROOT } from "../helpers/example.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { HeldRuntime } from "./held-runtime.js";

const P = EXAMPLE.participant;

/** The participant's stored observed lifecycle, read through a connection of its own. */
async function storedLifecycle(url: string): Promise<string | undefined> {
  const reader = await openControlPlaneStore(url, { create: false });
  try {
    return (await reader.getParticipantService(P))?.service.observed_lifecycle;
  } finally {
    await reader.close();
  }
}

/**
 * A `raes control drain` in its own process waits for an invocation held open by this test's manager on
 * `url`, and is killed while it waits; the manager's clock is then moved past the drain's deadline.
 */
async function killedDrain(url: string): Promise<void> {
  let clock = Date.now();
  const runtime = new HeldRuntime();
  const manager = await RuntimeManager.open({
    model: modelWithAttempts(1000),
    manifest: controlledManifest(),
    runtime,
    store: url,
    now: () => clock,
  });
  try {
    runtime.holding = true;
    const step = manager.step(1);
    await runtime.called;
    // `raes control drain` in its own process waits for the open invocation; it is killed while it waits.
    const drainer = spawn(
      process.execPath,
      cliNodeArgs(["control", "drain", P, "--store", url, "--timeout", "600", "--operator", "alice"]),
      { cwd: ROOT, stdio: "ignore" },
    );
    const exited = once(drainer, "exit");
    try {
      for (let i = 0; i < 1500 && (await storedLifecycle(url)) !== "draining"; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      drainer.kill("SIGKILL");
      await exited;
    }
    assert.equal(await storedLifecycle(url), "draining", "the drain stored its in-between state");
    runtime.release();
    await step;
    // Before the drain's deadline nobody knows it was abandoned: still draining, and nothing runs.
    assert.equal((await manager.participantExecutionState(P)).observed_lifecycle, "draining");
    assert.equal((await manager.step(1)).invocations.length, 0);
    // Past its deadline (600 s) the drain is over unanswered: as RAES's timed-out drain, the service is
    // as it was, running, in the readback and, after the runtime's next read, in the store.
    clock = Date.now() + 700_000;
    const readback = await manager.participantExecutionState(P);
    assert.deepEqual(
      [
        readback.observed_lifecycle,
        readback.desired_lifecycle,
        readback.accepting_new_work,
        readback.draining,
      ],
      ["running", "running", true, false],
    );
    assert.equal((await manager.step(1)).invocations.length, 1, "the participant runs on");
    const stored = (await manager.participantServices())[0]?.service;
    assert.equal(stored?.observed_lifecycle, "running");
    assert.match(stored?.last_transition_ref ?? "", /:drain-abandoned:revision-\d+$/);
    assert.equal(
      (await manager.store.getDecisionHead()).decisions,
      0,
      "the unanswered drain left no decision",
    );
    // A new drain, with nothing open, finishes.
    const again = await controlParticipant(
      manager.store,
      { participant: P, action: "drain", operator: "bob" },
      { now: () => new Date(clock) },
    );
    assert.ok(again.ok, JSON.stringify(again));
    assert.equal(again.service.observed_lifecycle, "quiescent");
  } finally {
    await manager.close();
  }
}

describe("a drain whose process died while it waited", () => {
  it("SQLite file: reads back draining until its deadline, then as it was before the drain: the runtime runs on and a new drain finishes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-drain-"));
    try {
      await killedDrain(`sqlite:${join(dir, "cp.db")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("PostgreSQL: the same, a drainer killed while it waited is put back after its deadline", async (t) => {
    if (!(await postgresAvailable("an abandoned drain on PostgreSQL")))
      return t.skip("PostgreSQL unavailable");
    const { url, drop } = freshSchema("raes_drain_abandoned");
    try {
      await killedDrain(url);
    } finally {
      await drop();
    }
  });

  it("a control that finds an abandoned drain puts it back first, then applies (pause of the running service)", async () => {
    const runtime = new HeldRuntime();
    let clock = Date.UTC(2026, 0, 1);
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: controlledManifest(),
      runtime,
      now: () => clock,
    });
    try {
      runtime.holding = true;
      const step = manager.step(1);
      await runtime.called;
      // A drain that gives up waiting by its own clock without writing its end: as a process that died.
      let abandoned = false;
      const drain = controlParticipant(
        manager.store,
        { participant: P, action: "drain", drainTimeoutMs: 1000 },
        {
          now: () => new Date(clock),
          sleep: async () => {
            abandoned = true;
            await new Promise<never>(() => undefined);
          },
        },
      );
      while (!abandoned) await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await manager.participantExecutionState(P)).observed_lifecycle, "draining");
      const early = await controlParticipant(
        manager.store,
        { participant: P, action: "pause" },
        { now: () => new Date(clock) },
      );
      assert.equal(!early.ok && early.code, "runtime.participant-execution-transition-invalid");
      clock += 2001;
      const paused = await controlParticipant(
        manager.store,
        { participant: P, action: "pause" },
        { now: () => new Date(clock) },
      );
      assert.ok(paused.ok, JSON.stringify(paused));
      assert.equal(paused.service.observed_lifecycle, "paused");
      runtime.release();
      await step;
      void drain;
    } finally {
      await manager.close();
    }
  });
});

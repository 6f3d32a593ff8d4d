import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore, RuntimeManager } from "../../../src/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../../helpers/example.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";

const P = EXAMPLE.participant;
const pgAvailable = await postgresAvailable("execution control across managers on PostgreSQL");

function controlledManifest() {
  const manifest = exampleManifest();
  manifest.participant_runtime.supports_execution_control = true;
  manifest.participant_runtime.supported_execution_control_actions = [
    "start",
    "pause",
    "resume",
    "drain",
    "reset",
    "teardown",
  ];
  return manifest;
}

/**
 * Manager A runs the participant; manager B, on the same store, stores `action` at the worst moment: after
 * A read the services for its step and before A's open of the step's invocation is written (B's control
 * runs inside A's open call, before the open reaches the store). The open must find the stored control.
 */
async function controlDuringOpen(url: string, action: "pause" | "drain") {
  const runtime = new RecordingRuntime();
  let armed = false;
  let control: Promise<unknown> | undefined;
  let b: RuntimeManager | undefined;
  const store = aroundStoreMethod(await openControlPlaneStore(url), "openInvocation", async (_args, call) => {
    if (armed && b && !control) {
      const other = b;
      control = action === "pause" ? other.pauseParticipant(P) : other.drainParticipant(P);
      await control;
    }
    return call();
  });
  const a = await RuntimeManager.open({
    model: modelWithAttempts(1000),
    manifest: controlledManifest(),
    runtime,
    store,
  });
  b = await RuntimeManager.open({
    model: modelWithAttempts(1000),
    manifest: controlledManifest(),
    runtime: new RecordingRuntime(),
    store: url,
  });
  try {
    await a.step(1);
    const before = runtime.requests.length;
    assert.ok(before > 0, "A runs the participant before the control");
    armed = true;
    const summary = await a.step(1);
    assert.ok(control, "B's control ran inside A's open");
    assert.deepEqual(summary.invocations, [], "no invocation starts after the control is stored");
    assert.equal(runtime.requests.length, before, "the harness was not called");
    assert.deepEqual(await b.store.listOpenInvocations(P), []);
    const state = await b.participantExecutionState(P);
    assert.equal(state.observed_lifecycle, action === "pause" ? "paused" : "quiescent");
    // A keeps honouring it at its next steps, and runs again once B resumes or resets it.
    assert.deepEqual((await a.step(2)).invocations, []);
    if (action === "pause") await b.resumeParticipant(P);
    else await b.resetParticipant(P, { expectedGeneration: state.generation });
    assert.equal((await a.step(1)).invocations.length, 1);
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
}

describe("a control stored by another manager on the same store is honoured at the next open", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-control-across-"));
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const action of ["pause", "drain"] as const) {
    it(`SQLite file: a ${action} stored between A's read and A's open starts no invocation`, async () => {
      await controlDuringOpen(`sqlite:${join(dir, `${action}.db`)}`, action);
    });

    it(`PostgreSQL: a ${action} stored between A's read and A's open starts no invocation`, {
      skip: pgAvailable ? false : "POSTGRES UNAVAILABLE",
    }, async () => {
      const { url, drop } = freshSchema("raes_control");
      drops.push(drop);
      await controlDuringOpen(url, action);
    });
  }
});

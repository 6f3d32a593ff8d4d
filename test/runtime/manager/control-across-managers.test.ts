import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore, RuntimeManager } from "../../../src/index.js";
import { controlledManifest, EXAMPLE, modelWithAttempts } from "../../helpers/example.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";
import { EveryKthFails, v2Manifest } from "../v2/harness.js";
import { compileFile, V2_EXAMPLE } from "../v2/trace.js";

const P = EXAMPLE.participant;
const pgAvailable = await postgresAvailable("execution control across managers on PostgreSQL");

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

describe("a v2 participant's open is admitted under its stored service too", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-control-v2-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite file: a pause stored by B inside A's open of a v2 attempt starts no attempt of that participant", async () => {
    const url = `sqlite:${join(dir, "v2.db")}`;
    const manifest = () => {
      const m = v2Manifest() as { participant_runtime: Record<string, unknown> };
      m.participant_runtime.supports_execution_control = true;
      m.participant_runtime.supported_execution_control_actions = [
        "start",
        "pause",
        "resume",
        "drain",
        "reset",
        "teardown",
      ];
      return m;
    };
    const controls = [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ];
    const runtime = new EveryKthFails(0, "target_unavailable");
    const calls: string[] = [];
    const seen = runtime.modelAction.bind(runtime);
    runtime.modelAction = (request, snapshot, context) => {
      calls.push(request.participantAddress);
      return seen(request, snapshot, context);
    };
    let armed = false;
    let paused: string | undefined;
    let b: RuntimeManager | undefined;
    const store = aroundStoreMethod(
      await openControlPlaneStore(url),
      "openInvocation",
      async (args, call) => {
        if (armed && b && paused === undefined) {
          paused = (args[0] as { participantAddress: string }).participantAddress;
          await b.pauseParticipant(paused);
        }
        return call();
      },
    );
    const model = compileFile(V2_EXAMPLE);
    const a = await RuntimeManager.open({
      model,
      manifest: manifest(),
      runtime,
      store,
      stochasticControls: controls,
    });
    b = await RuntimeManager.open({
      model,
      manifest: manifest(),
      runtime: new EveryKthFails(0, "target_unavailable"),
      store: url,
      stochasticControls: controls,
    });
    try {
      armed = true;
      let before = 0;
      for (let step = 0; step < 200 && paused === undefined; step += 1) {
        before = calls.length;
        await a.step(1);
      }
      assert.ok(paused, "an attempt was due within 200 steps");
      assert.ok(
        calls.slice(before).every((p) => p !== paused),
        "the paused participant's attempt did not reach the harness",
      );
      await a.step(20);
      assert.ok(calls.slice(before).every((p) => p !== paused));
      assert.deepEqual(await b.store.listOpenInvocations(paused), []);
      assert.equal((await b.participantExecutionState(paused)).observed_lifecycle, "paused");
    } finally {
      await a.close();
      await b.close();
      await store.close();
    }
  });
});

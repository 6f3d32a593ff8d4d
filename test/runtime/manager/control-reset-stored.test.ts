import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { controlParticipant, openControlPlaneStore, RuntimeManager } from "../../../src/index.js";
import { controlledManifest, EXAMPLE, exampleModel } from "../../helpers/example.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";

const P = EXAMPLE.participant;
const pgAvailable = await postgresAvailable("an execution reset stored while no runtime ran on PostgreSQL");

const open = (store: string, runtime: RecordingRuntime) =>
  RuntimeManager.open({ model: exampleModel(), manifest: controlledManifest(), runtime, store });

/**
 * A runs the schedule to completion and closes; drain and reset are then stored with no runtime holding
 * the participant (as `raes control` does); the next runtime opened on the store clears the counters.
 */
async function resetWhileNoneRan(url: string) {
  const a = await open(url, new RecordingRuntime());
  await a.step(5);
  assert.deepEqual(
    a.schedulers().map((s) => [s.lifecycle, s.attempts]),
    [["completed", 2]],
  );
  await a.close();

  const store = await openControlPlaneStore(url);
  try {
    const drained = await controlParticipant(store, { participant: P, action: "drain", operator: "alice" });
    assert.ok(drained.ok);
    const reset = await controlParticipant(store, { participant: P, action: "reset", operator: "alice" });
    assert.ok(reset.ok && reset.service.generation === drained.service.generation + 1);
  } finally {
    await store.close();
  }

  const runtime = new RecordingRuntime();
  const b = await open(url, runtime);
  try {
    await b.step(1);
    assert.ok(runtime.requests.length > 0, "the reset schedule runs again under the next runtime");
    assert.ok(runtime.requests.every((r) => r.executionGeneration === 2));
    const [scheduler] = await b.store.listSchedulers();
    assert.equal(scheduler?.attempts, runtime.requests.length, "attempts counted from the reset");
    assert.equal(scheduler?.executionResets, 1);
  } finally {
    await b.close();
  }

  // Honoured once: a third runtime does not clear the counters again.
  const c = await open(url, new RecordingRuntime());
  try {
    const before = (await c.store.listSchedulers())[0]?.attempts;
    await c.step(1);
    assert.ok(((await c.store.listSchedulers())[0]?.attempts ?? 0) >= (before ?? 0));
  } finally {
    await c.close();
  }
}

describe("an execution reset stored while no runtime held the participant", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-reset-stored-"));
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("SQLite file: the next runtime opened on the store clears the schedule's attempts and runs it again", async () => {
    await resetWhileNoneRan(`sqlite:${join(dir, "reset.db")}`);
  });

  it("PostgreSQL: the next runtime opened on the store clears the schedule's attempts and runs it again", {
    skip: pgAvailable ? false : "POSTGRES UNAVAILABLE",
  }, async () => {
    const { url, drop } = freshSchema("raes_reset_stored");
    drops.push(drop);
    await resetWhileNoneRan(url);
  });
});

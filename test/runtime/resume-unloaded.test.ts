import assert from "node:assert/strict";
import { it } from "node:test";
import { type ControlPlaneStore, RuntimeManager, StoreUnavailableError } from "../../src/index.js";
import { MemoryControlPlaneStore } from "../../src/store/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../helpers/example.js";
import { aroundStoreMethod } from "../helpers/faulty-store.js";
import { ScriptedResultRuntime } from "./harnesses.js";

const TTL = 1_000;

it("refuses to resume a participant held again but not loaded (its load failed), writing nothing; resumes once loaded", async () => {
  let t = 1_000_000;
  const store = new MemoryControlPlaneStore({ now: () => t });
  let failRecoveryReads = false;
  const faulty = aroundStoreMethod(store, "listOpenInvocations", (_args, call) =>
    failRecoveryReads ? Promise.reject(new StoreUnavailableError("injected: recovery read failed")) : call(),
  );
  const open = (ownerId: string, on: ControlPlaneStore) =>
    RuntimeManager.open({
      model: modelWithAttempts(10),
      manifest: exampleManifest(),
      // Every outer attempt fails: each consumes one attempt and stops the scheduler (failure_policy).
      runtime: new ScriptedResultRuntime(() => {
        throw new Error("boom");
      }),
      store: on,
      ownerId,
      leaseTtlMs: TTL,
      now: () => t,
      log: () => undefined,
    });
  const a = await open("host-a", faulty);
  assert.deepEqual(
    a.schedulers().map((s) => [s.lifecycle, s.attempts]),
    [["stopped", 1]],
  );

  // a goes silent; after its lease expired, b takes the participant over, resumes it, runs one more
  // failing attempt and gives the participant up.
  t += 5 * TTL;
  const b = await open("host-b", store);
  await b.resumeParticipant(EXAMPLE.participant);
  await b.step(1);
  await b.close();
  const storeState = await store.listSchedulers();
  assert.deepEqual(
    storeState.map((s) => [s.lifecycle, s.attempts]),
    [["stopped", 2]],
  );

  // a takes the participant again (a new token), and its recovery read fails: held, not loaded.
  failRecoveryReads = true;
  await assert.rejects(a.step(1), StoreUnavailableError);
  await assert.rejects(a.resumeParticipant(EXAMPLE.participant), (error: Error & { code?: string }) => {
    assert.equal(error.code, "runtime.unknown-participant");
    assert.match(error.message, /has not loaded it \(its load failed\); it loads at the next step/);
    return true;
  });
  assert.deepEqual(await store.listSchedulers(), storeState, "a's older record was not written back");

  failRecoveryReads = false;
  await a.step(1);
  await a.resumeParticipant(EXAMPLE.participant);
  assert.deepEqual(
    (await store.listSchedulers()).map((s) => [s.lifecycle, s.attempts]),
    [["running", 2]],
    "resumed from the store's record, not a's older one",
  );
  await a.close();
});

import assert from "node:assert/strict";
import { it } from "node:test";
import {
  type ControlPlaneStore,
  RuntimeManager,
  type RuntimeManagerOptions,
  StoreUnavailableError,
} from "../../../src/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts, modelWithParticipants } from "../../helpers/example.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
import { ScriptedResultRuntime } from "../harnesses.js";
import { EveryKthFails, v2Manifest } from "../v2/harness.js";
import { compileFile, V2_EXAMPLE } from "../v2/trace.js";

const TTL = 1_000;

/** The options every open shares but the store and owner: a fresh runtime each time. */
type BaseOptions = () => Omit<RuntimeManagerOptions, "store" | "ownerId" | "leaseTtlMs" | "now" | "log">;

/** A memory store on a clock the test moves, and `open` of a manager on it (or on a faulty view of it). */
function hosts(base: BaseOptions) {
  const clock = { t: 1_000_000 };
  const store = new MemoryControlPlaneStore({ now: () => clock.t });
  const open = (ownerId: string, on: ControlPlaneStore = store) =>
    RuntimeManager.open({
      ...base(),
      store: on,
      ownerId,
      leaseTtlMs: TTL,
      now: () => clock.t,
      log: () => undefined,
    });
  return { clock, store, open };
}

/** Every outer attempt fails: each consumes one attempt and stops the scheduler (failure_policy). */
const alwaysFails = () =>
  new ScriptedResultRuntime(() => {
    throw new Error("boom");
  });

it("resumeParticipant loads a participant held again but not loaded (its load failed) before resuming it, never writing its older record", async () => {
  const { clock, store, open } = hosts(() => ({
    model: modelWithAttempts(10),
    manifest: exampleManifest(),
    runtime: alwaysFails(),
  }));
  let failRecoveryReads = false;
  const faulty = aroundStoreMethod(store, "listOpenInvocations", (_args, call) =>
    failRecoveryReads ? Promise.reject(new StoreUnavailableError("injected: recovery read failed")) : call(),
  );
  const a = await open("host-a", faulty);
  assert.deepEqual(
    a.schedulers().map((s) => [s.lifecycle, s.attempts]),
    [["stopped", 1]],
  );

  // a goes silent; after its lease expired, b takes the participant over, resumes it, runs one more
  // failing attempt and gives the participant up.
  clock.t += 5 * TTL;
  const b = await open("host-b");
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
  assert.deepEqual(a.schedulers(), [], "no record older than the store's is shown");
  // Resuming loads it first; that load fails too, and nothing is written.
  await assert.rejects(a.resumeParticipant(EXAMPLE.participant), StoreUnavailableError);
  assert.deepEqual(await store.listSchedulers(), storeState, "a's older record was not written back");

  failRecoveryReads = false;
  // No step between: resuming loads the participant, then resumes the store's record.
  await a.resumeParticipant(EXAMPLE.participant);
  assert.deepEqual(
    (await store.listSchedulers()).map((s) => [s.lifecycle, s.attempts]),
    [["running", 2]],
    "resumed from the store's record, not a's older one",
  );
  await a.close();
});

it("pause and resume load a participant held again but not loaded first, or leave it out, never writing its older continuation", async () => {
  const { clock, store, open } = hosts(() => ({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime: new EveryKthFails(3, "target_unavailable"),
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
  }));
  let failRecoveryReads = false;
  const faulty = aroundStoreMethod(store, "listOpenInvocations", (_args, call) =>
    failRecoveryReads ? Promise.reject(new StoreUnavailableError("injected: recovery read failed")) : call(),
  );
  const a = await open("host-a", faulty);
  for (let i = 0; i < 5; i += 1) await a.step(1);
  const older = a.schedulers()[0]?.activity?.attempted_actions;
  clock.t += 5 * TTL;
  const b = await open("host-b");
  for (let i = 0; i < 30; i += 1) await b.step(1);
  await b.close();
  const [stored] = await store.listSchedulers();
  assert.ok(stored?.activity && older !== undefined && stored.activity.attempted_actions > older);

  failRecoveryReads = true;
  await assert.rejects(a.step(1), StoreUnavailableError);
  // It cannot load now: pause leaves it out (its next step says why) and writes nothing of it.
  await a.pause();
  assert.deepEqual(
    await store.listSchedulers(),
    [stored],
    "nothing written, the older continuation least of all",
  );

  failRecoveryReads = false;
  await a.resume();
  await a.pause();
  const [paused] = await store.listSchedulers();
  assert.equal(paused?.activity?.lifecycle_state, "paused");
  assert.equal(paused?.activity?.attempted_actions, stored.activity.attempted_actions);
  await a.resume();
  const [resumed] = await store.listSchedulers();
  assert.notEqual(resumed?.activity?.lifecycle_state, "paused");
  assert.ok((resumed?.activity?.attempted_actions ?? 0) >= stored.activity.attempted_actions);
  await a.close();
});

it("one participant whose load keeps failing blocks neither resumeParticipant nor pause of the others", async () => {
  const { clock, store, open } = hosts(() => ({
    model: modelWithParticipants(2, 10),
    manifest: exampleManifest(),
    runtime: alwaysFails(),
  }));
  let failing: string | undefined;
  const faulty = aroundStoreMethod(store, "getScheduler", (args, call) =>
    args[0] === failing ? Promise.reject(new StoreUnavailableError("injected: its load failed")) : call(),
  );
  const a = await open("host-a", faulty);
  const [first, second] = a.schedulers().map((s) => s.participantAddress);
  assert.ok(first && second);
  clock.t += 5 * TTL;
  await (await open("host-b")).close();

  // a takes both again; the second's load fails, and with it the step.
  failing = second;
  await assert.rejects(a.step(1), StoreUnavailableError);
  assert.deepEqual(a.schedulers(), []);
  await a.resumeParticipant(first);
  assert.deepEqual(
    a.schedulers().map((s) => [s.participantAddress, s.lifecycle]),
    [[first, "running"]],
  );
  await a.pause();
  assert.equal((await store.getClock("time.clock.scenario-clock"))?.paused, true, "the clock paused");
  await assert.rejects(a.resumeParticipant(second), StoreUnavailableError);
  failing = undefined;
  await a.resume();
  assert.deepEqual(
    a
      .schedulers()
      .map((s) => s.participantAddress)
      .sort(),
    [first, second].sort(),
  );
  await a.close();
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  StoreUnavailableError,
} from "../../../src/store/index.js";
import { exampleManifest, modelWithParticipants } from "../../helpers/example.js";
import { withWriteFaults } from "../../helpers/faulty-store.js";
import { RecordingRuntime } from "../harnesses.js";

/** The store, whose next `openInvocation` fails (nothing written) once `failNextOpen` is set. */
function failingOpen(inner: ControlPlaneStore): { store: ControlPlaneStore; failNextOpen: () => void } {
  let fail = false;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "openInvocation") return value.bind(target);
      return (...args: unknown[]) => {
        if (fail) {
          fail = false;
          return Promise.reject(new StoreUnavailableError("the store went away"));
        }
        return (value as (...a: unknown[]) => Promise<void>).apply(target, args);
      };
    },
  });
  return { store, failNextOpen: () => (fail = true) };
}

describe("a step whose clock moved elsewhere after a participant's open failed", () => {
  for (const concurrency of [1, 2]) {
    it(`still reports that participant's failure (concurrency ${concurrency})`, async () => {
      const model = modelWithParticipants(3, 1_000);
      const manifest = exampleManifest();
      manifest.participant_runtime.max_autonomous_participants = 3;
      const shared = new MemoryControlPlaneStore();
      const { store, failNextOpen } = failingOpen(shared);
      const open = (ownerId: string, s: ControlPlaneStore) =>
        RuntimeManager.open({
          model,
          manifest,
          runtime: new RecordingRuntime(),
          store: s,
          ownerId,
          log: () => {},
        });
      const a = await open("host-a", store);
      const b = await open("host-b", shared);
      for (const m of [a, b, a, b]) await m.step();
      assert.ok(a.share().owned >= 2, "a runs at least two participants");
      // b steps further, so a's prediction is stale; a's first open (the carrier) fails outright.
      await b.step(2);
      failNextOpen();
      await assert.rejects(a.step(1, { concurrency }), (error: unknown) => {
        const errors = error instanceof AggregateError ? error.errors : [error];
        return errors.some((e) => String(e).includes("the store went away"));
      });
      await a.close();
      await b.close();
    });
  }
});

describe("a step that could not commit its clock change at all", () => {
  it("leaves the next step to move the clock once, and run the tick the failed step never reached", async () => {
    const model = modelWithParticipants(1, 1_000);
    const inner = new MemoryControlPlaneStore();
    const faults = withWriteFaults(inner);
    const m = await RuntimeManager.open({
      model,
      manifest: exampleManifest(),
      runtime: new RecordingRuntime(),
      store: faults.store,
      log: () => {},
    });
    const clockAddress = Object.values(model.autonomousPolicies)[0]?.clockAddress ?? "";
    const tick = async () => (await inner.getClock(clockAddress))?.tick ?? assert.fail("no clock");
    await m.step();
    const before = await tick();
    for (const method of ["openInvocation", "updateClock"]) faults.failing.add(method);
    await assert.rejects(m.step(), /store unavailable/);
    assert.equal(await tick(), before, "the store is down: the clock stayed");
    faults.failing.clear();
    const next = await m.step();
    const after = await tick();
    assert.ok(after > before, "the clock moved");
    const ticks = await Promise.all(
      next.invocations.map(async (i) => (await inner.getInvocation(i.invocationId))?.tick),
    );
    assert.deepEqual(ticks, [after], "the tick the clock moved to ran, once");
    const { invocations: again } = await m.step();
    assert.equal((await tick()) - after, after - before, "every step moves the clock by one step");
    assert.equal(again.length, 1);
    await m.close();
  });
});

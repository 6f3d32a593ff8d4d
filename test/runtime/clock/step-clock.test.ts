import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StepClock, StepClockMovedError } from "../../../src/runtime/clock/index.js";
import {
  applyClockChange,
  type ClockRecord,
  type ControlPlaneStore,
  LeaseLostError,
  MemoryControlPlaneStore,
} from "../../../src/store/index.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
import { clock, invocation, P1, scheduler } from "../../store/records.js";

const AT = "2025-01-01T00:00:09.000Z";

/** A StepClock over `store` holding one step past `seen`, recording every clock it learns. */
function held(store: ControlPlaneStore, seen: ClockRecord) {
  const recorded: ClockRecord[] = [];
  const step = new StepClock(store, (c) => recorded.push(c));
  const change = {
    advanceTo: { segment: seen.segment, generation: seen.generation, tick: seen.tick + 1 },
    at: AT,
  };
  const expected = applyClockChange(seen, change);
  let alone = 0;
  step.hold({
    fold: { change, expected },
    commitAlone: () => {
      alone += 1;
      return store.updateClock(seen, change);
    },
  });
  return { step, expected, recorded, alone: () => alone };
}

describe("StepClock: a step's clock change held for its first write", () => {
  it("hands the change to the next open when the carrying open fails for another reason", async () => {
    const store = new MemoryControlPlaneStore();
    const seen = clock({ tick: 3 });
    await store.saveClock(seen);
    const lease = await store.acquireLease(P1, "host-a", 60_000);
    assert.ok(lease);
    const { step, expected, alone } = held(store, seen);
    const stale = { participantAddress: P1, token: lease.token + 1 };
    await assert.rejects(
      step.store.openInvocation(invocation({ id: "inv-1" }), scheduler(), stale),
      LeaseLostError,
    );
    assert.deepEqual(await store.getClock(seen.clockAddress), seen, "the refused open moved nothing");
    const fence = { participantAddress: P1, token: lease.token };
    await step.store.openInvocation(invocation({ id: "inv-2" }), scheduler(), fence);
    assert.equal((await store.getClock(seen.clockAddress))?.tick, expected.tick);
    assert.equal(alone(), 0, "the second open carried the change");
    assert.ok(step.open, "later writes go straight through");
  });

  it("commits the change alone before a first write that is not an open", async () => {
    const store = new MemoryControlPlaneStore();
    const seen = clock({ tick: 3 });
    await store.saveClock(seen);
    const { step, expected, recorded, alone } = held(store, seen);
    await step.store.saveScheduler(scheduler());
    assert.equal(alone(), 1);
    assert.equal(recorded[0]?.tick, expected.tick);
    assert.equal((await store.getClock(seen.clockAddress))?.tick, expected.tick);
  });

  it("fails every write of the step once the clock is found moved elsewhere, having written none of them", async () => {
    const store = new MemoryControlPlaneStore();
    const seen = clock({ tick: 3 });
    const paused = { ...seen, paused: true };
    await store.saveClock(paused);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The carrying open waits at the store, so the second open arrives while it is under way.
    const slow = aroundStoreMethod(store, "openInvocation", async (_args, call) => {
      await gate;
      return call();
    });
    const { step, recorded } = held(slow, seen);
    const first = step.store.openInvocation(invocation({ id: "inv-1" }), scheduler());
    const second = step.store.openInvocation(invocation({ id: "inv-2" }), scheduler());
    release();
    await assert.rejects(first, StepClockMovedError);
    await assert.rejects(second, StepClockMovedError);
    await assert.rejects(step.store.saveScheduler(scheduler()), StepClockMovedError);
    assert.ok(step.moved);
    assert.deepEqual(await store.listOpenInvocations(), []);
    assert.equal(await store.getScheduler(P1, scheduler().policyAddress), undefined);
    assert.equal(recorded.at(-1)?.paused, true, "the clock as it stands is recorded");
    step.clear();
    await step.store.saveScheduler(scheduler());
    assert.ok(
      await store.getScheduler(P1, scheduler().policyAddress),
      "writes pass once the step starts over",
    );
  });
  it("hands out one wrapper per method that still holds writes while a change is held, and follows a replaced method", async () => {
    const store = new MemoryControlPlaneStore();
    const seen = clock({ tick: 3 });
    await store.saveClock(seen);
    const { step, alone } = held(store, seen);
    const save = step.store.saveScheduler;
    assert.equal(step.store.saveScheduler, save, "the same wrapper on every access");
    await save(scheduler());
    assert.equal(alone(), 1, "a wrapper taken while the change was held still commits it first");
    assert.ok(step.open);
    const saved: unknown[] = [];
    const original = store.saveScheduler;
    store.saveScheduler = (...args) => {
      saved.push(args[0]);
      return original.apply(store, args);
    };
    await step.store.saveScheduler(scheduler({ cursor: 7 }));
    assert.equal(saved.length, 1, "a method replaced on the store is the one called");
    assert.equal((await store.getScheduler(P1, scheduler().policyAddress))?.cursor, 7);
  });
});

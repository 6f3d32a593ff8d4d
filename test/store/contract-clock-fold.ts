import assert from "node:assert/strict";
import { it } from "node:test";
import {
  applyClockChange,
  type ClockChange,
  type ClockFold,
  ClockMovedError,
  type ClockRecord,
  type ControlPlaneStore,
  LeaseLostError,
  StoreConflictError,
} from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { clock, invocation, P1, scheduler } from "./records.js";

const T1 = "2025-01-01T00:00:01.000Z";
const ADDRESS = clock().clockAddress;

/** The fold of `change` on the clock the opener saw: the change and what it yields there. */
function fold(seen: ClockRecord, change: ClockChange): ClockFold {
  return { change, expected: applyClockChange(seen, change) };
}

/** One step past `seen`, as a runtime step asks it. */
function stepPast(seen: ClockRecord, ticks = 1): ClockChange {
  return {
    advanceTo: { segment: seen.segment, generation: seen.generation, tick: seen.tick + ticks },
    at: T1,
  };
}

/** True when nothing of the open was written: no invocation, the scheduler and clock as before. */
async function assertNothingWritten(
  store: ControlPlaneStore,
  id: string,
  clockBefore: ClockRecord | undefined,
) {
  assert.equal(await store.getInvocation(id), undefined, "the invocation was not inserted");
  assert.equal(
    await store.getScheduler(P1, scheduler().policyAddress),
    undefined,
    "the scheduler was not saved",
  );
  assert.deepEqual(await store.getClock(ADDRESS), clockBefore, "the clock did not change");
}

/** `openInvocation` carrying a clock change (`ClockFold`): all or nothing, and only where the clock yields what was expected. */
export function clockFoldCases(fixture: FixtureSource): void {
  it("commits the clock change with the invocation and its scheduler", async () => {
    const { store } = fixture();
    const seen = clock({ tick: 3 });
    await store.saveClock(seen);
    const carried = fold(seen, stepPast(seen));
    const inv = invocation({ tick: 4 });
    const opened = scheduler({ tick: 4, attempts: 1 });
    await store.openInvocation(inv, opened, undefined, carried);
    assert.deepEqual(await store.getClock(ADDRESS), { ...carried.expected, updatedAt: T1 });
    assert.deepEqual(await store.getInvocation(inv.id), inv);
    assert.deepEqual(await store.getScheduler(P1, opened.policyAddress), opened);
    // The next change starts from the clock the open wrote (PostgreSQL: the row it expects next).
    const next = await store.updateClock(clock(), stepPast(carried.expected));
    assert.equal(next.tick, 5);
  });

  it("applies every kind of change as updateClock does, and refuses a wrong expectation", async () => {
    const { store } = fixture();
    let n = 0;
    const stored = (paused: boolean) => clock({ segment: 1, tick: 5, generation: 2, paused });
    const advances: ReadonlyArray<Partial<ClockChange>> = [
      {},
      { advanceTicks: 2 },
      { advanceTo: { segment: 1, generation: 2, tick: 8 } },
      { advanceTo: { segment: 1, generation: 2, tick: 4 } },
      { advanceTo: { segment: 2, generation: 3, tick: 6 } },
    ];
    for (const storedPaused of [false, true]) {
      for (const reset of [undefined, false, true]) {
        for (const paused of [undefined, false, true]) {
          for (const advance of advances) {
            const change: ClockChange = {
              ...(reset === undefined ? {} : { reset }),
              ...(paused === undefined ? {} : { paused }),
              ...advance,
              at: T1,
            };
            const label = JSON.stringify({ storedPaused, ...change });
            const before = stored(storedPaused);
            await store.saveClock(before);
            const right = fold(before, change);
            const wrong = { change, expected: { ...right.expected, tick: right.expected.tick + 1 } };
            n += 1;
            await assert.rejects(
              store.openInvocation(invocation({ id: `inv-${n}` }), scheduler(), undefined, wrong),
              (error: unknown) => error instanceof ClockMovedError && error.stored?.tick === 5,
              label,
            );
            assert.deepEqual(await store.getClock(ADDRESS), before, label);
            assert.equal(await store.getInvocation(`inv-${n}`), undefined, label);
            await store.openInvocation(invocation({ id: `inv-${n}` }), scheduler(), undefined, right);
            assert.deepEqual(await store.getClock(ADDRESS), right.expected, label);
          }
        }
      }
    }
  });

  it("writes nothing when the clock was paused, reset or stepped further elsewhere, and names the stored clock", async () => {
    const { store } = fixture();
    const seen = clock({ tick: 3 });
    const carried = fold(seen, stepPast(seen));
    for (const elsewhere of [
      clock({ tick: 3, paused: true }),
      clock({ segment: 1, tick: 0, generation: 2 }),
      clock({ tick: 5 }),
    ]) {
      await store.saveClock(elsewhere);
      const error = await store.openInvocation(invocation(), scheduler(), undefined, carried).then(
        () => assert.fail("the open was written"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ClockMovedError, String(error));
      assert.deepEqual(error.stored, elsewhere);
      await assertNothingWritten(store, invocation().id, elsewhere);
    }
  });

  it("writes nothing when the clock does not exist", async () => {
    const { store } = fixture();
    const seen = clock({ tick: 3 });
    const error = await store
      .openInvocation(invocation(), scheduler(), undefined, fold(seen, stepPast(seen)))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(error instanceof ClockMovedError && error.stored === undefined, String(error));
    await assertNothingWritten(store, invocation().id, undefined);
  });

  it("commits when another process already took the same step (the change is idempotent)", async () => {
    const { store } = fixture();
    const seen = clock({ tick: 3 });
    const carried = fold(seen, stepPast(seen));
    await store.saveClock(clock({ tick: 4 }));
    await store.openInvocation(invocation(), scheduler(), undefined, carried);
    assert.deepEqual(await store.getClock(ADDRESS), { ...carried.expected, updatedAt: T1 });
    assert.ok(await store.getInvocation(invocation().id));
  });

  it("moves the clock with neither a refused fence nor a taken invocation id", async () => {
    const { store } = fixture();
    const seen = clock({ tick: 3 });
    await store.saveClock(seen);
    const carried = fold(seen, stepPast(seen));
    const lease = await store.acquireLease(P1, "host-a", 60_000);
    assert.ok(lease);
    const stale = { participantAddress: P1, token: lease.token + 1 };
    await assert.rejects(store.openInvocation(invocation(), scheduler(), stale, carried), LeaseLostError);
    await assertNothingWritten(store, invocation().id, seen);
    const fence = { participantAddress: P1, token: lease.token };
    await store.openInvocation(invocation({ id: "inv-first" }), scheduler(), fence);
    await assert.rejects(
      store.openInvocation(invocation({ id: "inv-first" }), scheduler({ attempts: 3 }), fence, carried),
      StoreConflictError,
    );
    assert.deepEqual(await store.getClock(ADDRESS), seen);
    assert.equal((await store.getScheduler(P1, scheduler().policyAddress))?.attempts, scheduler().attempts);
  });

  it("commits both when two store instances carry the same step at once: the clock moves once", async (t) => {
    const { store, reopen } = fixture();
    if (!reopen) {
      t.skip("this store is not durable");
      return;
    }
    const other = await reopen();
    try {
      const seen = clock({ tick: 3 });
      await store.saveClock(seen);
      const carried = fold(seen, stepPast(seen));
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? store : other).openInvocation(
            invocation({ id: `inv-${i}` }),
            scheduler({ participantAddress: P1, attempts: i }),
            undefined,
            carried,
          ),
        ),
      );
      assert.equal((await store.getClock(ADDRESS))?.tick, 4);
      assert.equal((await store.listOpenInvocations()).length, 10);
    } finally {
      await other.close();
    }
  });
}

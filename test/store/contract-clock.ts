import assert from "node:assert/strict";
import { it } from "node:test";
import type { ClockChange } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { clock, closeCommit, invocation, P1, P2, scheduler } from "./records.js";

const T1 = "2025-01-01T00:00:01.000Z";
const T2 = "2025-01-01T00:00:02.000Z";
const ADDRESS = clock().clockAddress;

type Flag = boolean | undefined;
/**
 * stored paused, change.reset, change.paused → segment, generation, paused after, and the tick
 * after an advance of (none, 0, 2) from segment 1, tick 5, generation 2.
 */
const CLOCK_TABLE: ReadonlyArray<
  readonly [boolean, Flag, Flag, number, number, boolean, readonly [number, number, number]]
> = [
  [false, undefined, undefined, 1, 2, false, [5, 5, 7]],
  [false, undefined, false, 1, 2, false, [5, 5, 7]],
  [false, undefined, true, 1, 2, true, [5, 5, 5]],
  [false, false, undefined, 1, 2, false, [5, 5, 7]],
  [false, false, false, 1, 2, false, [5, 5, 7]],
  [false, false, true, 1, 2, true, [5, 5, 5]],
  [false, true, undefined, 2, 3, false, [0, 0, 2]],
  [false, true, false, 2, 3, false, [0, 0, 2]],
  [false, true, true, 2, 3, true, [0, 0, 0]],
  [true, undefined, undefined, 1, 2, true, [5, 5, 5]],
  [true, undefined, false, 1, 2, false, [5, 5, 7]],
  [true, undefined, true, 1, 2, true, [5, 5, 5]],
  [true, false, undefined, 1, 2, true, [5, 5, 5]],
  [true, false, false, 1, 2, false, [5, 5, 7]],
  [true, false, true, 1, 2, true, [5, 5, 5]],
  [true, true, undefined, 2, 3, true, [0, 0, 0]],
  [true, true, false, 2, 3, false, [0, 0, 2]],
  [true, true, true, 2, 3, true, [0, 0, 0]],
];

/** `updateClock` semantics and atomicity, and the scheduler watermark columns. */
export function clockCases(fixture: FixtureSource): void {
  it("creates the clock from initial on its first update, then changes the stored clock", async () => {
    const { store } = fixture();
    const initial = clock({ tick: 0 });
    const first = await store.updateClock(initial, { advanceTicks: 2, at: T1 });
    assert.deepEqual(first, clock({ tick: 2, updatedAt: T1 }));
    assert.deepEqual(await store.getClock(ADDRESS), first);
    const second = await store.updateClock(clock({ tick: 100, generation: 9 }), { advanceTicks: 3, at: T2 });
    assert.deepEqual(second, clock({ tick: 5, updatedAt: T2 }), "a stored clock wins over initial");
    assert.deepEqual(await store.getClock(ADDRESS), second);
  });

  it("does not advance while paused; pausing and resuming apply before the change's advance", async () => {
    const { store } = fixture();
    await store.saveClock(clock({ tick: 3 }));
    const paused = await store.updateClock(clock(), { paused: true, advanceTicks: 4, at: T1 });
    assert.deepEqual(paused, clock({ tick: 3, paused: true, updatedAt: T1 }));
    const still = await store.updateClock(clock(), { advanceTicks: 4, at: T2 });
    assert.deepEqual(still, clock({ tick: 3, paused: true, updatedAt: T2 }));
    const resumed = await store.updateClock(clock(), { paused: false, advanceTicks: 4, at: T1 });
    assert.deepEqual(resumed, clock({ tick: 7, paused: false, updatedAt: T1 }));
    assert.deepEqual(await store.getClock(ADDRESS), resumed);
  });

  it("resets to the next segment at tick 0 with the next generation, then advances in the same change", async () => {
    const { store } = fixture();
    await store.saveClock(clock({ segment: 2, tick: 9, generation: 4 }));
    const reset = await store.updateClock(clock(), { reset: true, advanceTicks: 1, at: T1 });
    assert.deepEqual(reset, clock({ segment: 3, tick: 1, generation: 5, updatedAt: T1 }));
    const pausedReset = await store.updateClock(clock(), {
      reset: true,
      paused: true,
      advanceTicks: 6,
      at: T2,
    });
    assert.deepEqual(pausedReset, clock({ segment: 4, tick: 0, generation: 6, paused: true, updatedAt: T2 }));
    assert.deepEqual(await store.getClock(ADDRESS), pausedReset);
  });

  it("moves up to a target tick in the same segment and generation, never back, not while paused, not across a reset", async () => {
    const { store } = fixture();
    const to = (tick: number, segment = 1, generation = 2) => ({ advanceTo: { segment, generation, tick } });
    await store.saveClock(clock({ segment: 1, tick: 5, generation: 2 }));
    assert.equal((await store.updateClock(clock(), { ...to(8), at: T1 })).tick, 8, "up to the target");
    assert.equal(
      (await store.updateClock(clock(), { ...to(6), at: T1 })).tick,
      8,
      "a target behind moves nothing",
    );
    assert.equal(
      (await store.updateClock(clock(), { ...to(20, 0), at: T1 })).tick,
      8,
      "another segment's target",
    );
    assert.equal(
      (await store.updateClock(clock(), { ...to(20, 1, 1), at: T1 })).tick,
      8,
      "another generation's",
    );
    const paused = await store.updateClock(clock(), { paused: true, ...to(20), at: T1 });
    assert.deepEqual([paused.tick, paused.paused], [8, true], "paused in the same change");
    assert.equal((await store.updateClock(clock(), { ...to(20), at: T1 })).tick, 8, "still paused");
    const reset = await store.updateClock(clock(), { paused: false, reset: true, ...to(20), at: T2 });
    assert.deepEqual(
      [reset.segment, reset.generation, reset.tick],
      [2, 3, 0],
      "the old segment's target is void",
    );
    assert.deepEqual(await store.getClock(ADDRESS), reset);
  });

  it("applies every combination of clock state and change as the table below says", async () => {
    const { store } = fixture();
    // Written out by hand from the rule (reset, then pause state, then an advance unless paused),
    // not computed by the code under test. The stored clock is segment 1, tick 5, generation 2.
    for (const [storedPaused, reset, paused, segment, generation, finalPaused, ticks] of CLOCK_TABLE) {
      for (const [i, advanceTicks] of ([undefined, 0, 2] as const).entries()) {
        const stored = clock({ segment: 1, tick: 5, generation: 2, paused: storedPaused });
        const change: ClockChange = {
          at: T1,
          ...(reset === undefined ? {} : { reset }),
          ...(paused === undefined ? {} : { paused }),
          ...(advanceTicks === undefined ? {} : { advanceTicks }),
        };
        await store.saveClock(stored);
        const expected = clock({
          segment,
          tick: ticks[i] ?? Number.NaN,
          generation,
          paused: finalPaused,
          updatedAt: T1,
        });
        const label = JSON.stringify({ storedPaused, ...change });
        assert.deepEqual(await store.updateClock(clock(), change), expected, label);
        assert.deepEqual(await store.getClock(ADDRESS), expected, label);
      }
    }
  });

  it("never loses an advance when two store instances on one URL update concurrently", async (t) => {
    const { store, reopen } = fixture();
    if (!reopen) {
      t.skip("this store is not durable");
      return;
    }
    const other = await reopen();
    const step = 3;
    const perStore = 50;
    const initial = clock({ tick: 0 });
    const results = await Promise.all(
      [store, other].flatMap((s) =>
        Array.from({ length: perStore }, () => s.updateClock(initial, { advanceTicks: step, at: T1 })),
      ),
    );
    assert.equal((await store.getClock(ADDRESS))?.tick, 2 * perStore * step);
    assert.deepEqual(
      results.map((c) => c.tick).sort((a, b) => a - b),
      Array.from({ length: 2 * perStore }, (_, i) => (i + 1) * step),
      "each update saw the one before it",
    );
  });

  it("round-trips the scheduler watermark through every scheduler write", async () => {
    const { store } = fixture();
    const saved = scheduler({ segment: 2, tick: 17 });
    await store.saveScheduler(saved);
    assert.deepEqual(await store.getScheduler(P1, saved.policyAddress), saved);
    const inv = invocation({ segment: 2, tick: 18 });
    const opened = scheduler({ segment: 2, tick: 18, attempts: 1 });
    await store.openInvocation(inv, opened);
    assert.deepEqual(await store.getScheduler(P1, saved.policyAddress), opened);
    const closed = scheduler({ segment: 3, tick: 1, nextOrdinal: 2 });
    await store.commitInvocation(closeCommit(inv, [], closed));
    const other = scheduler({ participantAddress: P2, segment: 5, tick: 2 ** 40 });
    await store.saveScheduler(other);
    assert.deepEqual(await store.getScheduler(P1, saved.policyAddress), closed);
    assert.deepEqual(await store.listSchedulers(), [closed, other]);
  });
}

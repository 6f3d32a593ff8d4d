import { ClockMovedError } from "./errors.js";
import type { ClockChange, ClockFold, ClockRecord } from "./types.js";

/** The clock after a change: reset first, then pause state, then an advance (by ticks, or up to a target) unless paused. */
export function applyClockChange(clock: ClockRecord, change: ClockChange): ClockRecord {
  const reset = change.reset === true;
  const paused = change.paused ?? clock.paused;
  const base = reset ? { segment: clock.segment + 1, tick: 0, generation: clock.generation + 1 } : clock;
  const to = change.advanceTo;
  const target =
    to && !paused && to.segment === base.segment && to.generation === base.generation ? to.tick : 0;
  return {
    clockAddress: clock.clockAddress,
    segment: base.segment,
    tick: Math.max(base.tick + (paused ? 0 : (change.advanceTicks ?? 0)), target),
    generation: base.generation,
    paused,
    updatedAt: change.at,
  };
}

/** True when two records of a clock stand at the same place: segment, tick, generation and pause. */
export function sameClock(a: ClockRecord | undefined, b: ClockRecord | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.clockAddress === b.clockAddress &&
    a.segment === b.segment &&
    a.tick === b.tick &&
    a.generation === b.generation &&
    a.paused === b.paused
  );
}

/** The clock an open's change writes: the expected one, or `ClockMovedError` when the stored clock yields another. */
export function foldClock(stored: ClockRecord | undefined, fold: ClockFold): ClockRecord {
  if (!stored || !sameClock(applyClockChange(stored, fold.change), fold.expected)) {
    throw new ClockMovedError(
      `clock ${fold.expected.clockAddress} is not where the open expected it`,
      stored,
    );
  }
  return { ...fold.expected, updatedAt: fold.change.at };
}

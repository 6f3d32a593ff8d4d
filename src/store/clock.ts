import type { ClockChange, ClockRecord } from "./types.js";

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

import type { ClockChange, ClockRecord } from "../store/index.js";

/**
 * The change one step asks of a shared clock: one step past the clock this process last saw, and
 * no further. Every process sharing a store steps the same clocks; an advance by a step from each
 * would move scenario time once per process per step. Asking for "at least one step past what I
 * saw" moves it once: a process that saw an older clock (another stepped first) asks for a tick
 * already reached and moves nothing, yet runs the ticks the clock passed. A paused clock or one in
 * another segment or generation (a reset elsewhere) ignores the target, and the answer is the
 * clock the next step starts from.
 */
export function clockStep(seen: ClockRecord | undefined, stepTicks: number): Omit<ClockChange, "at"> {
  if (!seen) return { advanceTicks: stepTicks };
  return { advanceTo: { segment: seen.segment, generation: seen.generation, tick: seen.tick + stepTicks } };
}

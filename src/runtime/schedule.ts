import type { CompiledTemporalConstraint } from "../compiler/index.js";

/** The outer action instance id: `<policy>:<participant>:<n>`, n from 0. */
export function outerActionInstanceId(
  policyAddress: string,
  participantAddress: string,
  ordinal: number,
): string {
  return `${policyAddress}:${participantAddress}:${ordinal}`;
}

/** The episode id of a participant in a clock segment. */
export function episodeIdFor(participantAddress: string, segment: number): string {
  return `${participantAddress}-autonomous-${segment}`;
}

/** The observation point of a clock position. */
export function observationPointFor(clockAddress: string, segment: number, tick: number): string {
  return `${clockAddress}@segment=${segment},tick=${tick}`;
}

/** The cadence ticks in the half-open window (fromTick, toTick], in order. */
export function dueTicks(
  constraint: CompiledTemporalConstraint | undefined,
  fromTick: number,
  toTick: number,
): number[] {
  // A v2 schedule has no cadence: it looks at the tick the clock stands on, its continuation says the rest.
  if (!constraint) return [toTick];
  const cadence = constraint.cadenceTicks ?? 0;
  if (cadence < 1 || toTick <= fromTick) return [];
  const start = constraint.startTick;
  const first = fromTick < start ? start : start + (Math.floor((fromTick - start) / cadence) + 1) * cadence;
  const ticks: number[] = [];
  for (let tick = first; tick <= toTick; tick += cadence) ticks.push(tick);
  return ticks;
}

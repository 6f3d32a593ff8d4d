import type { CompiledTemporalConstraint, RuntimeModel } from "../../compiler/index.js";
import type { SchedulerRecord } from "../../store/index.js";

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
  const start = constraint.startTick ?? 0;
  const first = fromTick < start ? start : start + (Math.floor((fromTick - start) / cadence) + 1) * cadence;
  const ticks: number[] = [];
  for (let tick = first; tick <= toTick; tick += cadence) ticks.push(tick);
  return ticks;
}

/** Where one owned schedule stands in real time: its clock's tick and the next tick it is due at. */
export interface SchedulePosition {
  readonly participantAddress: string;
  readonly policyAddress: string;
  /** The clock tick the schedule has run up to (its watermark moves with the clock every step). */
  readonly clockTick: number;
  /** The next cadence tick it is due at; undefined when it has no cadence or has finished. */
  readonly nextDueTick: number | undefined;
  /** True when it will run nothing more: stopped or completed, its attempts used up, or (in `run`) its participant torn down. */
  readonly finished: boolean;
}

/** Each owned schedule's position, from its scheduler record and its policy's cadence. */
export function schedulePositions(
  model: RuntimeModel,
  schedulers: readonly SchedulerRecord[],
): SchedulePosition[] {
  return schedulers.map((record) => {
    const policy = model.autonomousPolicies[record.policyAddress];
    const cadence =
      policy?.cadenceConstraintAddress === undefined
        ? undefined
        : model.temporalConstraints[policy.cadenceConstraintAddress];
    const finished =
      record.lifecycle !== "running" || (policy !== undefined && record.attempts >= policy.maxActionAttempts);
    const period = cadence?.cadenceTicks ?? 0;
    const horizon = cadence ? Math.max(record.tick, cadence.startTick ?? 0) + period : 0;
    return {
      participantAddress: record.participantAddress,
      policyAddress: record.policyAddress,
      clockTick: record.tick,
      nextDueTick:
        finished || !cadence || period < 1 ? undefined : dueTicks(cadence, record.tick, horizon)[0],
      finished,
    };
  });
}

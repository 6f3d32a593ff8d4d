import type { RuntimeModel } from "../compiler/index.js";
import type { SchedulerRecord } from "../store/index.js";
import { dueTicks } from "./schedule.js";

/** Where one owned schedule stands in real time: its clock's tick and the next tick it is due at. */
export interface SchedulePosition {
  readonly participantAddress: string;
  readonly policyAddress: string;
  /** The clock tick the schedule has run up to (its watermark moves with the clock every step). */
  readonly clockTick: number;
  /** The next cadence tick it is due at; undefined when it has no cadence or has finished. */
  readonly nextDueTick: number | undefined;
  /** True when it will run nothing more: stopped or completed, or its attempts are used up. */
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
    const horizon = cadence ? Math.max(record.tick, cadence.startTick) + period : 0;
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

import { policyDigest, type RuntimeModel } from "../../compiler/index.js";
import type { ClockRecord, HistoryEvent, SchedulerRecord } from "../../records/index.js";
import { episodeIdFor, outerActionInstanceId } from "../schedule/index.js";
import type { AutonomousExecutionState } from "./types.js";

/** RAES's key of a scheduler state: `<policy>.state.<participant>`. */
export function schedulerStateKey(policyAddress: string, participantAddress: string): string {
  return `${policyAddress}.state.${participantAddress}`;
}

/** What a v1 state needs besides the record: the clock, and the outer results of the record's episode. */
export interface StateInputs {
  readonly model: RuntimeModel;
  readonly record: SchedulerRecord;
  readonly clock: ClockRecord | undefined;
  /** The record's episode's history (of this participant), to count succeeded attempts. */
  readonly episodeEvents: readonly HistoryEvent[];
  /** Open (running) invocations of this participant under this policy. */
  readonly inFlight: number;
}

/** The first cadence tick strictly after `after` (the start tick when none is later). */
function nextCadenceTick(start: number, period: number, after: number): number {
  if (after < start || period < 1) return start;
  return start + (Math.floor((after - start) / period) + 1) * period;
}

/** RAES's lifecycle of a v1 schedule: a stop that waits for an operator's resolution is `paused`. */
function v1Lifecycle(
  record: SchedulerRecord,
  clock: ClockRecord | undefined,
  bound: number,
): AutonomousExecutionState["lifecycle_state"] {
  if (record.lifecycle === "completed" || record.attempts >= bound) return "completed";
  if (record.lifecycle === "stopped")
    return record.stopReason === "tool_action_indeterminate" ? "paused" : "failed";
  return clock?.paused ? "paused" : "running";
}

/** Outer attempts of the episode that ended `succeeded` (RAES counts only `succeeded` as a success). */
function succeededOuter(events: readonly HistoryEvent[]): number {
  return events.filter(
    (e) =>
      e.event_type === "observation_emitted" &&
      e.invocation_tool_context === undefined &&
      e.action_result?.status === "succeeded",
  ).length;
}

/**
 * A schedule's state under RAES's names (RAES's `ParticipantAutonomousExecutionStateModel`), translated
 * from the stored record at the view edge, so stored data keeps its shape. `next_tick` is the tick the
 * next attempt is due at (the stored record keeps the tick it has run up to). A clock in a newer segment
 * than the record (a reset whose start tick has not run yet) reads as that segment's fresh state, as in
 * RAES. v2 states are the continuation's fields with the same identity fields.
 */
export function autonomousExecutionState(input: StateInputs): AutonomousExecutionState | undefined {
  const { model, record, clock } = input;
  const policy = model.autonomousPolicies[record.policyAddress];
  if (!policy) return undefined;
  const fresh = clock !== undefined && clock.segment > record.segment;
  const segment = fresh ? clock.segment : record.segment;
  const identity = {
    policy_address: policy.address,
    policy_digest: record.policyDigest ?? policyDigest(model, policy),
    participant_address: record.participantAddress,
    episode_id:
      record.activity && !fresh
        ? record.activity.episode_id
        : episodeIdFor(record.participantAddress, segment),
    participant_implementation_ref: policy.participantImplementationRef,
    clock_address: policy.clockAddress,
    time_segment: segment,
  };
  if (record.activity && !fresh) {
    const { episode_id: _episode, time_segment: _segment, ...activity } = record.activity;
    return {
      ...identity,
      ...activity,
      in_flight: input.inFlight,
      profile: policy.profile,
    } as AutonomousExecutionState;
  }
  const cadence =
    policy.cadenceConstraintAddress === undefined
      ? undefined
      : model.temporalConstraints[policy.cadenceConstraintAddress];
  const start = cadence?.startTick ?? 0;
  const period = cadence?.cadenceTicks ?? 0;
  const attempts = fresh ? 0 : record.attempts;
  const lifecycle = fresh
    ? clock.paused
      ? "paused"
      : "running"
    : v1Lifecycle(record, clock, policy.maxActionAttempts);
  // A running schedule is due at the first cadence tick past its watermark; a finished one keeps the
  // tick after its last attempt, as RAES leaves it.
  const nextTick =
    attempts === 0
      ? start
      : lifecycle === "running" || lifecycle === "paused"
        ? nextCadenceTick(start, period, record.tick)
        : start + attempts * period;
  const succeeded = fresh ? 0 : Math.min(attempts, succeededOuter(input.episodeEvents));
  const inFlight = fresh ? 0 : Math.min(input.inFlight, attempts - succeeded);
  const order = policy.actionOrder.length;
  return {
    ...identity,
    lifecycle_state: lifecycle,
    next_tick: nextTick,
    next_action_index: fresh || order === 0 ? 0 : record.cursor % order,
    attempted_actions: attempts,
    succeeded_actions: succeeded,
    failed_actions: attempts - succeeded - inFlight,
    in_flight: inFlight,
    last_action_instance_id:
      attempts === 0
        ? null
        : outerActionInstanceId(policy.address, record.participantAddress, record.nextOrdinal - 1),
  };
}

import type { CompiledActivityCandidate, CompiledActivityPolicy } from "../../compiler/index.js";
import type { ParticipantStreamAddress } from "../../random/index.js";
import type { ActivityContinuation, TimingDisposition } from "../../store/index.js";
import {
  DrawCoordinate,
  drawAddress,
  drawV2Integer,
  nextTiming,
  selectCandidate,
  type V2Stream,
} from "./draws.js";

/** The fixed parts of one participant's v2 schedule. */
export interface V2Plan {
  readonly activity: CompiledActivityPolicy;
  readonly stream: V2Stream;
  readonly maxActionAttempts: number;
  readonly failurePolicy: string;
}

/** One attempt the scheduler decided to make now, with the provenance RAES records for it. */
export interface PlannedAttempt {
  readonly attemptId: string;
  readonly occurrenceId: string;
  readonly predecessorAttemptId: string | null;
  readonly candidateIndex: number;
  readonly candidate: CompiledActivityCandidate;
  readonly tick: number;
  readonly timingDisposition: TimingDisposition;
  readonly burstPosition: number;
  /** The selection draw's address: safe identity, no key material. */
  readonly randomAddress: ParticipantStreamAddress;
}

/** What is due at a tick: an attempt, a continuation change with nothing to run, or nothing. */
export type DueDecision =
  | { readonly kind: "attempt"; readonly state: ActivityContinuation; readonly attempt: PlannedAttempt }
  | { readonly kind: "idle"; readonly state: ActivityContinuation }
  | { readonly kind: "none" };

/** How an attempt ended, as far as the scheduler cares. */
export interface AttemptOutcome {
  readonly succeeded: boolean;
  readonly failureClass?: string | undefined;
  /** The result was absent, invalid or thrown: the continuation fails, as in RAES. */
  readonly protocolFailure: boolean;
  /** The attempt's effect is unknown (consumed by recovery): never retried. */
  readonly indeterminate: boolean;
}

/** An attempt whose process died (or whose harness failed) before it closed: consumed, its effect unknown, never retried. */
export const CONSUMED_ATTEMPT: AttemptOutcome = {
  succeeded: false,
  protocolFailure: false,
  indeterminate: true,
};

/**
 * The scheduler's view of a closed attempt's outer result. No valid result (the harness threw or
 * answered an invalid one) consumes the attempt as a crash does, so resuming goes on where a crash would.
 */
export function attemptOutcome(
  outer: { readonly status: string; readonly failureClass?: string | undefined } | undefined,
): AttemptOutcome {
  if (outer === undefined) return CONSUMED_ATTEMPT;
  return {
    succeeded: outer.status === "succeeded",
    failureClass: outer.failureClass,
    protocolFailure: false,
    indeterminate: false,
  };
}

/** RAES's attempt id; the segment keeps ids of reset generations apart. */
export function attemptId(plan: V2Plan, c: ActivityContinuation, occurrence: number, retry: number): string {
  const { policyAddress, participantAddress } = plan.stream;
  return `${policyAddress}:${participantAddress}:episode=${c.episode_id}:segment=${c.time_segment}:occurrence=${occurrence}:retry=${retry}`;
}

/** Candidates whose dependencies have completed and whose cooldown has passed, in canonical order. */
export function eligibleCandidates(
  activity: CompiledActivityPolicy,
  c: ActivityContinuation,
  tick: number,
): number[] {
  const done = new Set(c.completed_candidate_ids);
  const out: number[] = [];
  activity.candidates.forEach((candidate, i) => {
    if (
      candidate.dependsOn.every((d) => done.has(d)) &&
      (c.candidate_cooldown_until[candidate.id] ?? 0) <= tick
    )
      out.push(i);
  });
  return out;
}

/**
 * The next thing due at `tick`. A continuation whose tick passed while its scheduler was stopped
 * runs at the first tick it is looked at again (RAES has no stopped state to compare with).
 */
export function planDue(plan: V2Plan, c: ActivityContinuation, tick: number): DueDecision {
  if (c.lifecycle_state !== "running" || c.next_tick > tick || c.attempted_actions >= plan.maxActionAttempts)
    return { kind: "none" };
  const { activity, stream } = plan;
  let index = c.next_action_index;
  if (c.current_retry === 0) {
    const selected = selectCandidate(
      activity,
      stream,
      c.time_segment,
      c.occurrence_ordinal,
      eligibleCandidates(activity, c, tick),
    );
    if (selected === undefined) return { kind: "idle", state: emptyEligible(plan, c, tick) };
    index = selected;
  }
  const candidate = activity.candidates[index];
  if (!candidate) return { kind: "none" };
  const state = { ...c, next_action_index: index };
  const disposition: TimingDisposition =
    c.current_retry > 0 ? "retry" : c.burst_position > 0 ? "burst" : c.next_timing_disposition;
  return {
    kind: "attempt",
    state,
    attempt: {
      attemptId: attemptId(plan, c, c.occurrence_ordinal, c.current_retry),
      occurrenceId: `${stream.policyAddress}:${stream.participantAddress}:segment=${c.time_segment}:occurrence=${c.occurrence_ordinal}`,
      predecessorAttemptId:
        c.current_retry > 0 ? attemptId(plan, c, c.occurrence_ordinal, c.current_retry - 1) : null,
      candidateIndex: index,
      candidate,
      tick,
      timingDisposition: disposition,
      burstPosition: c.burst_position,
      randomAddress: drawAddress(stream, c.time_segment, c.occurrence_ordinal, DrawCoordinate.selection),
    },
  };
}

/** No candidate is eligible: `complete` ends the participant, `wait` redraws timing for the same occurrence. */
function emptyEligible(plan: V2Plan, c: ActivityContinuation, tick: number): ActivityContinuation {
  if (plan.activity.emptyEligibleDisposition === "complete")
    return { ...c, lifecycle_state: "completed", next_tick: tick };
  const timing = nextTiming(plan.activity, plan.stream, c.time_segment, c.occurrence_ordinal, tick);
  return timing.tick === undefined
    ? { ...c, lifecycle_state: "completed", next_tick: tick }
    : { ...c, next_tick: timing.tick };
}

/** The continuation after `attempt` (planned from `c`) ended with `outcome` at its tick. */
export function settleAttempt(
  plan: V2Plan,
  c: ActivityContinuation,
  attempt: PlannedAttempt,
  outcome: AttemptOutcome,
): ActivityContinuation {
  const { activity, stream } = plan;
  const candidate = attempt.candidate;
  const tick = attempt.tick;
  const attempted = c.attempted_actions + 1;
  const failed = c.failed_actions + (outcome.succeeded ? 0 : 1);
  const retryable =
    !outcome.protocolFailure &&
    !outcome.indeterminate &&
    !outcome.succeeded &&
    outcome.failureClass !== undefined &&
    candidate.retryableFailureClasses.includes(outcome.failureClass) &&
    c.current_retry < candidate.maxRetries &&
    attempted < plan.maxActionAttempts;
  if (retryable) {
    return {
      ...c,
      next_tick: tick,
      attempted_actions: attempted,
      failed_actions: failed,
      current_retry: c.current_retry + 1,
      last_candidate_id: candidate.id,
      last_action_instance_id: attempt.attemptId,
    };
  }
  const completed = [...c.completed_candidate_ids];
  if (outcome.succeeded && !completed.includes(candidate.id)) completed.push(candidate.id);
  const cooldowns = { ...c.candidate_cooldown_until, [candidate.id]: tick + candidate.cooldownTicks };
  const occurrence = c.occurrence_ordinal + 1;
  let lifecycle = c.lifecycle_state;
  if (outcome.protocolFailure || (!outcome.succeeded && plan.failurePolicy === "stop")) lifecycle = "failed";
  else if (occurrence >= activity.maxOccurrences || attempted >= plan.maxActionAttempts)
    lifecycle = "completed";
  let { burst_position: burstPosition, burst_size: burstSize, next_timing_disposition: disposition } = c;
  let nextTick = tick;
  if (lifecycle === "running" && burstPosition + 1 < burstSize) {
    burstPosition += 1;
  } else if (lifecycle === "running") {
    burstPosition = 0;
    burstSize = drawV2Integer(
      stream,
      c.time_segment,
      occurrence,
      DrawCoordinate.burst,
      1,
      activity.maxBurstSize,
    );
    const timing = nextTiming(activity, stream, c.time_segment, occurrence, tick);
    disposition = timing.disposition;
    if (timing.tick === undefined) lifecycle = "completed";
    else nextTick = timing.tick;
  }
  return {
    ...c,
    lifecycle_state: lifecycle,
    next_tick: nextTick,
    attempted_actions: attempted,
    succeeded_actions: c.succeeded_actions + (outcome.succeeded ? 1 : 0),
    failed_actions: failed,
    occurrence_ordinal: occurrence,
    current_retry: 0,
    burst_position: burstPosition,
    burst_size: burstSize,
    last_candidate_id: candidate.id,
    completed_candidate_ids: completed,
    candidate_cooldown_until: cooldowns,
    last_action_instance_id: attempt.attemptId,
    next_timing_disposition: disposition,
  };
}

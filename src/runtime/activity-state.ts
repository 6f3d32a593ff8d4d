import type { CompiledActivityPolicy } from "../compiler/index.js";
import type { ActivityContinuation } from "../store/index.js";
import { type ActivityStream, DrawCoordinate, drawActivityInteger, nextTiming } from "./activity-draws.js";

/** The continuation fields docs/design.md §8 exposes on `schedulers()`, the store and history readers. */
export const CONTINUATION_FIELDS = [
  "lifecycle_state",
  "next_tick",
  "occurrence_ordinal",
  "current_retry",
  "burst_size",
  "burst_position",
  "next_timing_disposition",
  "attempted_actions",
  "succeeded_actions",
  "failed_actions",
  "completed_candidate_ids",
  "candidate_cooldown_until",
] as const;

/** The public continuation fields, in docs/design.md §8's order. */
export type ContinuationView = Pick<ActivityContinuation, (typeof CONTINUATION_FIELDS)[number]>;

/** The docs/design.md §8 view of a continuation. */
export function continuationView(c: ActivityContinuation): ContinuationView {
  return {
    lifecycle_state: c.lifecycle_state,
    next_tick: c.next_tick,
    occurrence_ordinal: c.occurrence_ordinal,
    current_retry: c.current_retry,
    burst_size: c.burst_size,
    burst_position: c.burst_position,
    next_timing_disposition: c.next_timing_disposition,
    attempted_actions: c.attempted_actions,
    succeeded_actions: c.succeeded_actions,
    failed_actions: c.failed_actions,
    completed_candidate_ids: [...c.completed_candidate_ids],
    candidate_cooldown_until: { ...c.candidate_cooldown_until },
  };
}

/**
 * The continuation at the start of a segment (start-up or reset): burst size and first timing
 * drawn for occurrence 0 from `currentTick`. No eligible tick completes the participant; RAES
 * does this at start-up, and raes-ts does it after a reset too (docs/design.md §8).
 */
export function segmentStart(
  activity: CompiledActivityPolicy,
  stream: ActivityStream,
  segment: number,
  episodeId: string,
  currentTick: number,
): ActivityContinuation {
  const burstSize = drawActivityInteger(stream, segment, 0, DrawCoordinate.burst, 1, activity.maxBurstSize);
  const timing = nextTiming(activity, stream, segment, 0, currentTick);
  return {
    lifecycle_state: timing.tick === undefined ? "completed" : "running",
    time_segment: segment,
    episode_id: episodeId,
    next_tick: timing.tick ?? currentTick,
    next_action_index: 0,
    occurrence_ordinal: 0,
    current_retry: 0,
    burst_size: burstSize,
    burst_position: 0,
    next_timing_disposition: timing.disposition,
    attempted_actions: 0,
    succeeded_actions: 0,
    failed_actions: 0,
    completed_candidate_ids: [],
    candidate_cooldown_until: {},
    last_candidate_id: null,
    last_action_instance_id: null,
  };
}

/** Pause moves a running continuation to `paused`; terminal states stay. */
export function pausedContinuation(c: ActivityContinuation): ActivityContinuation {
  return c.lifecycle_state === "running" ? { ...c, lifecycle_state: "paused" } : c;
}

/** Resume moves a paused continuation back to `running`. */
export function resumedContinuation(c: ActivityContinuation): ActivityContinuation {
  return c.lifecycle_state === "paused" ? { ...c, lifecycle_state: "running" } : c;
}

import type { SchedulerRecord } from "../store/index.js";

/** What an invocation close (or its recovery) learned that can stop the scheduler. */
export interface CloseFacts {
  readonly indeterminate: boolean;
  readonly outerFailed: boolean;
  readonly stopsOnFailure: boolean;
  /** A v2 harness threw or returned an invalid result (stops the scheduler whatever the failure_policy). */
  readonly harnessError?: boolean;
  /** The policy's max_action_attempts. */
  readonly maxActionAttempts: number;
}

/**
 * The scheduler after an invocation closes: an indeterminate tool action always stops it, a failure
 * stops it under failure_policy stop, and otherwise it is `completed` once its attempt bound is used up (as in RAES).
 * A v2 record follows its continuation: `failed` (failure_policy stop) stops it, `completed` completes
 * it; a v2 harness error stops it (`harness_error`) whatever the failure_policy.
 */
export function schedulerAfterClose(
  scheduler: SchedulerRecord,
  facts: CloseFacts,
  at: string,
): SchedulerRecord {
  if (facts.indeterminate) {
    return { ...scheduler, lifecycle: "stopped", stopReason: "tool_action_indeterminate", updatedAt: at };
  }
  if (facts.harnessError && scheduler.lifecycle === "running") {
    return { ...scheduler, lifecycle: "stopped", stopReason: "harness_error", updatedAt: at };
  }
  const activity = scheduler.activity?.lifecycle_state;
  if (
    scheduler.lifecycle === "running" &&
    ((facts.outerFailed && facts.stopsOnFailure) || activity === "failed")
  ) {
    return { ...scheduler, lifecycle: "stopped", stopReason: "failure_policy", updatedAt: at };
  }
  if (scheduler.lifecycle === "running" && activity === "completed") {
    return { ...scheduler, lifecycle: "completed", updatedAt: at };
  }
  if (scheduler.lifecycle === "running" && scheduler.attempts >= facts.maxActionAttempts) {
    return { ...scheduler, lifecycle: "completed", updatedAt: at };
  }
  return { ...scheduler, updatedAt: at };
}

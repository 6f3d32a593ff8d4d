import type { ResourceLedger } from "./resource.js";
/** Scheduler lifecycle of one participant. */
export const SchedulerLifecycle = {
  /** Due actions run. */
  running: "running",
  /** No action runs until the participant is resumed. */
  stopped: "stopped",
  /** The policy's attempt bound is used up; a reset starts the schedule again in the new segment. */
  completed: "completed",
} as const;
/** A scheduler lifecycle. */
export type SchedulerLifecycle = (typeof SchedulerLifecycle)[keyof typeof SchedulerLifecycle];

/** Why a participant's scheduler stopped. */
export const SchedulerStopReason = {
  /** A tool action settled indeterminate and awaits explicit resolution. */
  tool_action_indeterminate: "tool_action_indeterminate",
  /** The policy's failure_policy is `stop` and an invocation failed. */
  failure_policy: "failure_policy",
  /**
   * A v2 harness threw or returned an invalid result: the attempt is consumed as a crash would consume
   * it, and the scheduler waits for the operator whatever the failure_policy (RAES never goes on either).
   */
  harness_error: "harness_error",
  /** The policy's max_action_attempts is used up. */
  attempts_exhausted: "attempts_exhausted",
} as const;
/** A scheduler stop reason. */
export type SchedulerStopReason = (typeof SchedulerStopReason)[keyof typeof SchedulerStopReason];

/** The shared clock, durably. */
export interface ClockRecord {
  readonly clockAddress: string;
  readonly segment: number;
  readonly tick: number;
  readonly generation: number;
  readonly paused: boolean;
  readonly updatedAt: string;
}

/** One participant's scheduler under one policy, durably. */
export interface SchedulerRecord {
  readonly participantAddress: string;
  readonly policyAddress: string;
  readonly lifecycle: SchedulerLifecycle;
  readonly stopReason?: SchedulerStopReason;
  /** Next outer ordinal n; ids stay contiguous across segments. */
  readonly nextOrdinal: number;
  /** Attempts consumed in the current segment. */
  readonly attempts: number;
  /** Position in `action_order` for the ordered cycle. */
  readonly cursor: number;
  /** The clock segment this schedule has run up to; a newer clock segment restarts the schedule's episode. */
  readonly segment: number;
  /** The clock tick up to which this schedule has run its due actions (its watermark). */
  readonly tick: number;
  /** The v2 continuation (RAES's activity state); absent for v1 schedules. */
  readonly activity?: ActivityContinuation;
  /** The policy's max_action_attempts, so a resume without the model knows it (absent in old rows). */
  readonly maxActionAttempts?: number;
  /**
   * A one-way fingerprint of the v2 schedule's stochastic control (namespace and stream key): a reopen
   * with another control is refused. Never the seed or key. Absent for v1 and in old rows.
   */
  readonly streamFingerprint?: string;
  /**
   * RAES's policy digest (`sha256:<hex>`) of the policy this schedule runs under: reopening the store with
   * an edited policy is refused unless the change is allowed, which starts a new segment. Absent in old rows.
   */
  readonly policyDigest?: string;
  /** A v3 schedule's share of its policy's resource budgets (schema step 18); absent for v1 and v2. */
  readonly resources?: ResourceLedger;
  /**
   * How many execution resets of its participant's service this schedule has honoured (its counters
   * cleared; `executionResetsOf`), so a runtime opened after a reset stored while none ran still
   * honours it (schema step 24). Absent until a runtime first reads the service for it.
   */
  readonly executionResets?: number;
  readonly updatedAt: string;
}

/** RAES's v2 scheduler lifecycle states. */
export type ActivityLifecycle = "running" | "paused" | "completed" | "failed";

/** How an occurrence's tick was chosen (`burst` and `retry` appear only in provenance). */
export type TimingDisposition = "drawn" | "next_opening" | "burst" | "retry";

/**
 * A v2 participant's continuation, with RAES's (snake_case) state fields: everything the
 * scheduler needs to go on exactly where it stopped. It holds no seed, key or raw block.
 */
export interface ActivityContinuation {
  readonly lifecycle_state: ActivityLifecycle;
  readonly time_segment: number;
  readonly episode_id: string;
  readonly next_tick: number;
  /** Canonical index of the selected candidate (kept across retries). */
  readonly next_action_index: number;
  readonly occurrence_ordinal: number;
  readonly current_retry: number;
  readonly burst_size: number;
  readonly burst_position: number;
  readonly next_timing_disposition: TimingDisposition;
  readonly attempted_actions: number;
  readonly succeeded_actions: number;
  readonly failed_actions: number;
  readonly completed_candidate_ids: readonly string[];
  readonly candidate_cooldown_until: Readonly<Record<string, number>>;
  readonly last_candidate_id: string | null;
  readonly last_action_instance_id: string | null;
}

/** One refused call of an invocation, as the timeline shows it: no record, no history, just this. */
export interface RefusedCall {
  readonly code: string;
  /** When it was refused (ISO-8601, the runtime's clock). */
  readonly at: string;
  /** The MCP tool name or the tool affordance the call named, when it named one. */
  readonly tool?: string;
  /** The port call refused, or `gateway` for a call the MCP gateway refused before asking the port. */
  readonly call: string;
}

/** The most refused calls an invocation keeps with their details; all are counted. */
export const MAX_REFUSED_CALLS = 20;

/** One outer invocation (a scheduler operation), durably. */
export interface InvocationRecord {
  readonly id: string;
  readonly policyAddress: string;
  readonly participantAddress: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly episodeId: string;
  readonly segment: number;
  readonly tick: number;
  readonly ordinal: number;
  readonly executionScopeRef: string;
  readonly executionGeneration: number;
  readonly observationPoint: string;
  readonly participantImplementationRef: string;
  /** `running` while open, then `succeeded` or `failed`. */
  readonly state: "running" | "succeeded" | "failed";
  /** When the invocation started: the attempt was consumed and the harness about to be called. */
  readonly startedAt: string;
  /** When it ended: the harness returned (or timed out, or threw) and its tool actions settled. */
  readonly endedAt?: string;
  /** When recovery consumed it (its process ended or lost it, or its close could not be committed); then `endedAt` stays absent (its end is unknown). */
  readonly recoveredAt?: string;
  /** Refused calls per refusal code (the port's, and those an MCP gateway refused before asking it), committed with the close; absent when there were none. */
  readonly refusals?: Readonly<Record<string, number>>;
  /** The first refused calls, each with its code, time and tool, committed with the counts. */
  readonly refusedCalls?: readonly RefusedCall[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

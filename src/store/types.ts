import type { HistoryEvent, HistoryEventDraft } from "../history/types.js";
import type { Operation, ResolutionRecord } from "../operations/types.js";
import type { ToolActionPhase, ToolActionSettlement } from "../port/codes.js";
import type { ParticipantToolActionRequest } from "../port/types.js";

/** Scheduler lifecycle of one participant. */
export const SchedulerLifecycle = {
  /** Due actions run. */
  running: "running",
  /** No action runs until the participant is resumed. */
  stopped: "stopped",
} as const;
/** A scheduler lifecycle. */
export type SchedulerLifecycle = (typeof SchedulerLifecycle)[keyof typeof SchedulerLifecycle];

/** Why a participant's scheduler stopped. */
export const SchedulerStopReason = {
  /** A tool action settled indeterminate and awaits explicit resolution. */
  tool_action_indeterminate: "tool_action_indeterminate",
  /** The policy's failure_policy is `stop` and an invocation failed. */
  failure_policy: "failure_policy",
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
  readonly updatedAt: string;
}

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
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** One tool action (a child operation), durably. Holds no tool arguments or results. */
export interface ToolActionRecord {
  readonly id: string;
  readonly invocationId: string;
  readonly participantAddress: string;
  readonly toolCallId: string;
  readonly admissionOrdinal: number;
  /** Canonical digest of the request, for idempotency after restart. */
  readonly requestDigest: string;
  readonly request: ParticipantToolActionRequest;
  readonly phase: ToolActionPhase;
  readonly settlement?: ToolActionSettlement;
  readonly failureClass?: string;
  readonly evidenceRefs?: readonly string[];
  readonly unknownReason?: string;
  readonly resolution?: ResolutionRecord;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A change to a shared clock, applied atomically by the store. */
export interface ClockChange {
  /** Ticks to advance by; nothing moves while the clock is, or becomes, paused. */
  readonly advanceTicks?: number;
  readonly paused?: boolean;
  /** A new segment at tick 0 with the next generation (applied before any advance). */
  readonly reset?: boolean;
  readonly at: string;
}

/** Everything one invocation close (or its recovery) commits, all or nothing. */
export interface InvocationCommit {
  /** The invocation in its final state; the store refuses if it is no longer `running`. */
  readonly invocation: InvocationRecord;
  /** Tool actions in their settled state. */
  readonly toolActions: readonly ToolActionRecord[];
  /** Tool triples in admission order, then the outer triple when there is one. */
  readonly events: readonly HistoryEventDraft[];
  readonly scheduler: SchedulerRecord;
}

/** A participant's scheduler ownership, with the fencing token every write must present. */
export interface Lease {
  readonly participantAddress: string;
  readonly ownerId: string;
  readonly token: number;
  readonly expiresAt: number;
}

/** Which owner is writing; stores refuse writes whose token is no longer current. */
export interface Fence {
  readonly participantAddress: string;
  readonly token: number;
}

/** Filters for reading history. */
export interface HistoryQuery {
  readonly participantAddress?: string;
  readonly episodeId?: string;
}

/** Filters for listing tool actions. */
export interface ToolActionQuery {
  readonly invocationId?: string;
  readonly participantAddress?: string;
  readonly phase?: ToolActionPhase;
}

/**
 * The durable control plane. Every write method is one atomic transaction: it either
 * commits completely or throws (`StoreUnavailableError`, `StoreConflictError`, `LeaseLostError`).
 */
export interface ControlPlaneStore {
  readonly url: string;

  getOperation(id: string): Promise<Operation | undefined>;
  listEvents(query?: HistoryQuery): Promise<HistoryEvent[]>;
  getClock(clockAddress: string): Promise<ClockRecord | undefined>;
  getScheduler(participantAddress: string, policyAddress: string): Promise<SchedulerRecord | undefined>;
  listSchedulers(): Promise<SchedulerRecord[]>;
  getInvocation(id: string): Promise<InvocationRecord | undefined>;
  listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]>;
  getToolAction(id: string): Promise<ToolActionRecord | undefined>;
  listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]>;

  saveClock(clock: ClockRecord): Promise<void>;
  /**
   * Applies a change to the stored clock in one transaction (creating it as `initial` first when
   * absent) and returns the result, so processes sharing a clock never overwrite each other.
   */
  updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord>;
  saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void>;
  /** Inserts the running invocation and the scheduler's consumed attempt together. */
  openInvocation(invocation: InvocationRecord, scheduler: SchedulerRecord, fence?: Fence): Promise<void>;
  /** Inserts a claim; `StoreConflictError` when its id or (invocation, tool call) already exists. */
  insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void>;
  /** Replaces a tool action only while it is still in `expectedPhase`; false when it was not. */
  updateToolAction(action: ToolActionRecord, expectedPhase: ToolActionPhase, fence?: Fence): Promise<boolean>;
  commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void>;
  /** Commits several invocation closes (one participant's recovery) in one transaction, all or nothing. */
  commitInvocations(commits: readonly InvocationCommit[], fence?: Fence): Promise<void>;
  /** Records the resolution on an indeterminate, unresolved tool action; false otherwise. */
  recordResolution(id: string, resolution: ResolutionRecord): Promise<boolean>;

  /** The participant's current lease (live or expired), if one is held. */
  getLease(participantAddress: string): Promise<Lease | undefined>;
  /**
   * Takes or renews the participant's lease; undefined while another owner's lease is live,
   * unless that owner is `replacing` (an owner the caller knows to be dead).
   */
  acquireLease(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    options?: { readonly replacing?: string },
  ): Promise<Lease | undefined>;
  releaseLease(lease: Lease): Promise<void>;

  close(): Promise<void>;
}

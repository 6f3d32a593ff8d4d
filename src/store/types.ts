import type {
  ApprovalRecord,
  ApprovalState,
  ChainAnchor,
  ChainHead,
  ClockRecord,
  HistoryEvent,
  HistoryEventDraft,
  InvocationRecord,
  Operation,
  OperationEntry,
  OperationQuery,
  OperatorChainHead,
  OperatorDecision,
  OperatorDecisionDraft,
  PacingDeviationRecord,
  ParticipantServiceRecord,
  ResolutionRecord,
  ResourceBudgetEventQuery,
  ResourceBudgetEventRecord,
  ResourcePoolVersion,
  SchedulerRecord,
  ToolActionPhase,
  ToolActionRecord,
} from "../records/index.js";

export {
  type ActivityContinuation,
  type ActivityLifecycle,
  type ClockRecord,
  type InvocationRecord,
  type OperationCursor,
  type OperationEntry,
  type OperationQuery,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  type ResourceLedger,
  type ResourcePoolVersion,
  SchedulerLifecycle,
  type SchedulerRecord,
  SchedulerStopReason,
  type TimingDisposition,
  type ToolActionRecord,
} from "../records/index.js";

/** A change to a shared clock, applied atomically by the store. */
export interface ClockChange {
  /** Ticks to advance by; nothing moves while the clock is, or becomes, paused. */
  readonly advanceTicks?: number;
  /**
   * Moves the tick up to this one (never back) if the clock is still in this segment and generation
   * and not paused: processes sharing the clock each ask for one step past the clock they saw, so
   * it moves once per step of scenario time, not once per process.
   */
  readonly advanceTo?: { readonly segment: number; readonly generation: number; readonly tick: number };
  readonly paused?: boolean;
  /** A new segment at tick 0 with the next generation (applied before any advance). */
  readonly reset?: boolean;
  readonly at: string;
}

/**
 * A clock change an invocation open commits in its own transaction, and the clock the opener expects
 * it to yield (the change applied to the clock it last saw): a step's first open carries the step's
 * clock advance. The open is written only if the change, applied to the stored clock, yields
 * `expected` (segment, tick, generation and pause; not `updatedAt`); else nothing is written and the
 * store throws `ClockMovedError` with the clock as stored.
 */
export interface ClockFold {
  readonly change: ClockChange;
  readonly expected: ClockRecord;
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
  /** What the participant's chain starts from, used only for its first event (docs/evidence-format.md). */
  readonly anchor?: ChainAnchor;
}

/** A participant's scheduler ownership, with the fencing token every write must present. */
export interface Lease {
  readonly participantAddress: string;
  readonly ownerId: string;
  readonly token: number;
  readonly expiresAt: number;
}

/** A runtime process sharing the store: live until `expiresAt` (ms, the store's clock) unless it heartbeats again. */
export interface ProcessMember {
  readonly ownerId: string;
  readonly expiresAt: number;
}

/**
 * The execution service an invocation open was admitted under: the open is written only while the
 * participant's service record is still at `revision` (the one the runtime read and found accepting work),
 * checked in the open's own transaction; else `ServiceMovedError` and nothing is written. So a pause,
 * drain or teardown stored by any process is never followed by a new invocation.
 */
export interface ServiceAdmission {
  readonly participantAddress: string;
  readonly revision: number;
}

/** Which owner is writing; stores refuse writes whose token is no longer current. */
export interface Fence {
  readonly participantAddress: string;
  readonly token: number;
}

/** Filters for reading history, and a page of it. */
export interface HistoryQuery {
  readonly participantAddress?: string;
  readonly episodeId?: string;
  /** Only events committed after this sequence: where the next page starts. */
  readonly afterSequence?: number;
  /** At most this many events, the first in commit order: one page. */
  readonly limit?: number;
  /**
   * Only the last this many matching events (still in commit order), read from the end: a live view
   * of a long history reads what it shows, not the whole history. `limit` then takes the first of them.
   */
  readonly last?: number;
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
  /**
   * The operation of each id in `ids`, in their order: what `getOperation` answers for it (undefined
   * where there is none), read in one query per table, however many ids: how a reader of many
   * operations (the timeline, a page of history at a time) avoids a round trip per id.
   */
  getOperations(ids: readonly string[]): Promise<(Operation | undefined)[]>;
  /** Outer invocations and tool actions matching every filter, newest first, at most `limit`. */
  listOperations(query?: OperationQuery): Promise<OperationEntry[]>;
  /**
   * Ids of the operations (outer invocations and tool actions) that start or end with `fragment`: at
   * most `limit` of them, bytewise ascending. How a short id (a unique prefix or suffix) is looked up.
   */
  findOperationIds(fragment: string, limit: number): Promise<string[]>;
  /** Events matching every filter, in commit order; `afterSequence` and `limit` read it a page at a time. */
  listEvents(query?: HistoryQuery): Promise<HistoryEvent[]>;
  /**
   * At most `limit` events after `afterSequence`, every participant's, in commit order, each with its
   * `chain_digest` as stored: the page `raes verify` reads, so a history of any length is checked in
   * bounded memory.
   */
  readChainPage(afterSequence: number, limit: number): Promise<HistoryEvent[]>;
  /** Every participant's chain as the store keeps it (anchor, head, event count), ordered by participant. */
  listChainHeads(): Promise<ChainHead[]>;
  /**
   * Whether the store's schema chains its history (schema step 13, as its migrations table records):
   * false only for a store read as it is from before that step. Decided by the schema, never by the
   * chain rows, so a chain table someone emptied reads as tampered, not as never chained.
   */
  historyChained(): Promise<boolean>;
  /**
   * At most `limit` operator decisions after `afterSequence`, in the order they were decided, each
   * with its `chain_digest` as stored (docs/evidence-format.md): read a page at a time by `raes verify`.
   */
  readDecisionPage(afterSequence: number, limit: number): Promise<OperatorDecision[]>;
  /** The end of the store's operator chain as the store keeps it (the genesis and 0 while empty). */
  getDecisionHead(): Promise<OperatorChainHead>;
  /**
   * Runs `work` with reads that all see the store at one moment, whatever other connections commit
   * meanwhile: SQLite reads in one read transaction on a read-only connection of its own, PostgreSQL in
   * one `REPEATABLE READ READ ONLY` transaction. How `raes verify` and `raes export` read heads and
   * every page of a store others append to (docs/evidence-format.md). The memory store, one process's
   * own, reads live. Keep `work` short of long waits: the transaction stays open until it settles.
   */
  readSnapshot<T>(work: (reads: StoreReader) => Promise<T>): Promise<T>;
  getClock(clockAddress: string): Promise<ClockRecord | undefined>;
  getScheduler(participantAddress: string, policyAddress: string): Promise<SchedulerRecord | undefined>;
  listSchedulers(): Promise<SchedulerRecord[]>;
  getInvocation(id: string): Promise<InvocationRecord | undefined>;
  listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]>;
  getToolAction(id: string): Promise<ToolActionRecord | undefined>;
  listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]>;
  /**
   * The tool actions of every running invocation (of one participant when given), by invocation
   * (bytewise) then admission order: what recovery settles, read in one query.
   */
  listOpenToolActions(participantAddress?: string): Promise<ToolActionRecord[]>;
  /** One participant's execution service and episodes (schema step 17), if it has been written. */
  getParticipantService(participantAddress: string): Promise<ParticipantServiceRecord | undefined>;
  /** Every participant's execution service and episodes, ordered by participant address. */
  listParticipantServices(): Promise<ParticipantServiceRecord[]>;
  /**
   * Every shared v3 pool's version (schema step 19), by pool key: a scheduler write carrying a new hold
   * with `poolVersions` is written only while each named pool is at that version, and moves it on by one
   * (`ResourcePoolMovedError`, nothing written, otherwise). A pool never reserved against is absent (0).
   */
  listResourcePools(): Promise<ResourcePoolVersion[]>;
  /** The pacing deviations (schema step 20) of one participant, or of all: by participant, then as recorded. */
  listPacingDeviations(participantAddress?: string): Promise<PacingDeviationRecord[]>;
  /**
   * A page of budget events (schema step 22): every transition of every v3 schedule's ledger, each written
   * once in the transaction that wrote the ledger, in the store's order. `afterSequence` and `limit` read
   * it a page at a time; `last` reads only the last so many (a listing of the most recent).
   */
  listBudgetEvents(query: ResourceBudgetEventQuery): Promise<ResourceBudgetEventRecord[]>;
  /** How many budget events the store keeps, of one participant when given. */
  countBudgetEvents(participantAddress?: string): Promise<number>;

  saveClock(clock: ClockRecord): Promise<void>;
  /**
   * Applies a change to the stored clock in one transaction (creating it as `initial` first when
   * absent) and returns the result, so processes sharing a clock never overwrite each other.
   */
  updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord>;
  saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void>;
  /**
   * Inserts the running invocation and the scheduler's consumed attempt together, and the clock's
   * change when given (`ClockMovedError`, nothing written, when it does not yield the expected clock),
   * only while `admission` holds when given (`ServiceMovedError`, nothing written, otherwise).
   */
  openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
    clock?: ClockFold,
    admission?: ServiceAdmission,
  ): Promise<void>;
  /** Inserts a claim; `StoreConflictError` when its id or (invocation, tool call) already exists. */
  insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void>;
  /**
   * Moves a tool action on, only while it is still in `expectedPhase`; false when it was not. It
   * sets the fields the record has and never clears one (a tool action only gains fields).
   */
  updateToolAction(action: ToolActionRecord, expectedPhase: ToolActionPhase, fence?: Fence): Promise<boolean>;
  commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void>;
  /**
   * Commits several invocation closes (one participant's recovery) in one transaction, all or nothing.
   * The closes may be built as they are taken (a generator): a store may take them while it writes
   * the ones before, and a close that throws when taken rolls the whole transaction back.
   */
  commitInvocations(commits: Iterable<InvocationCommit>, fence?: Fence): Promise<void>;
  /**
   * Records the resolution on an indeterminate, unresolved tool action and appends `decision` to the
   * operator chain, in one transaction; false (nothing written) when the action is not such a one.
   */
  recordResolution(
    id: string,
    resolution: ResolutionRecord,
    decision: OperatorDecisionDraft,
  ): Promise<boolean>;
  /**
   * Sets the approval of a tool action that is still admitted (never dispatched) and whose stored
   * approval is in state `expected` (undefined: it has none yet), appending `decision` to the operator
   * chain in the same transaction when given; false (nothing written) otherwise. Every change of an
   * approval is this one compare-and-set, so two deciders (or a decider and an expiry) never both win.
   */
  recordApproval(
    id: string,
    approval: ApprovalRecord,
    expected: ApprovalState | undefined,
    decision?: OperatorDecisionDraft,
  ): Promise<boolean>;
  /**
   * Appends `decision` to the operator chain and saves `schedulers` (its effect, as a resume's) in one
   * transaction, fenced when `fence` is given; returns the decision as chained.
   */
  recordDecision(
    decision: OperatorDecisionDraft,
    schedulers: readonly SchedulerRecord[],
    fence?: Fence,
  ): Promise<OperatorDecision>;

  /**
   * Writes a participant's service record if the stored one is at `record.revision - 1` (absent for 1),
   * and appends `decision` to the operator chain in the same transaction; false (nothing written) when
   * another write came first.
   */
  saveParticipantService(
    record: ParticipantServiceRecord,
    decision?: OperatorDecisionDraft,
  ): Promise<boolean>;

  /**
   * Records a loss of pacing against a participant's service, once per participant and ref: false
   * (nothing written) when the same deviation is already recorded.
   */
  recordPacingDeviation(record: PacingDeviationRecord): Promise<boolean>;

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
  /**
   * Extends each lease by `ttlMs` from now while its owner still holds it under the same token, all
   * in one write; returns the leases renewed. One released, or taken by another owner, is left as it
   * is and missing from the answer (never taken back, as `acquireLease` would).
   */
  renewLeases(leases: readonly Lease[], ttlMs: number): Promise<Lease[]>;
  /** Every held lease (live or expired), ordered by participant: how the participants are shared out. */
  listLeases(): Promise<Lease[]>;

  /**
   * Marks `ownerId` live for `ttlMs` more (joining when new) and returns every live process, itself
   * included, ordered by owner id; processes whose heartbeat expired long ago are forgotten.
   */
  heartbeatProcess(ownerId: string, ttlMs: number): Promise<ProcessMember[]>;
  /** Removes `ownerId` from the live processes, so the others take its share at once. */
  leaveProcesses(ownerId: string): Promise<void>;

  close(): Promise<void>;
}

/** The store methods that read records, as a store's reads part answers them under the same names. */
export const STORE_READS = [
  "getOperations",
  "listOperations",
  "findOperationIds",
  "listEvents",
  "readChainPage",
  "listChainHeads",
  "historyChained",
  "readDecisionPage",
  "getDecisionHead",
  "getClock",
  "getScheduler",
  "listSchedulers",
  "getInvocation",
  "listOpenInvocations",
  "getToolAction",
  "listToolActions",
  "listOpenToolActions",
  "getParticipantService",
  "listParticipantServices",
  "listResourcePools",
  "listPacingDeviations",
  "listBudgetEvents",
  "countBudgetEvents",
] as const satisfies readonly (keyof ControlPlaneStore)[];

/** A store's reads alone, as `readSnapshot` lends them. */
export type StoreReader = Pick<ControlPlaneStore, (typeof STORE_READS)[number] | "getOperation" | "url">;

/** The names of the store's record writes, each one transaction. */
export const STORE_WRITES = [
  "saveClock",
  "updateClock",
  "saveScheduler",
  "openInvocation",
  "insertToolAction",
  "updateToolAction",
  "commitInvocation",
  "commitInvocations",
  "recordResolution",
  "recordApproval",
  "recordDecision",
  "saveParticipantService",
  "recordPacingDeviation",
] as const satisfies readonly (keyof ControlPlaneStore)[];

/** The store methods that write records (not leases or membership): each commits one transaction. */
export const STORE_DATA_WRITES: ReadonlySet<string> = new Set<keyof ControlPlaneStore>(STORE_WRITES);

import type { HistoryEvent, ToolActionPhase } from "../records/index.js";
import {
  type Operation,
  type OperationEntry,
  type OperationQuery,
  operationFromInvocation,
  operationFromToolAction,
  type ResolutionRecord,
} from "../records/index.js";
import type {
  ClockChange,
  ClockFold,
  ClockRecord,
  ControlPlaneStore,
  Fence,
  HistoryQuery,
  InvocationCommit,
  InvocationRecord,
  Lease,
  ProcessMember,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "./types.js";

/** A store part's answer: at once (SQLite, memory) or later (PostgreSQL). */
export type Answer<T> = T | Promise<T>;

/** The reads of a store. */
export interface StoreReads {
  clock(clockAddress: string): Answer<ClockRecord | undefined>;
  scheduler(participantAddress: string, policyAddress: string): Answer<SchedulerRecord | undefined>;
  schedulers(): Answer<SchedulerRecord[]>;
  invocation(id: string): Answer<InvocationRecord | undefined>;
  openInvocations(participantAddress: string | undefined): Answer<InvocationRecord[]>;
  toolAction(id: string): Answer<ToolActionRecord | undefined>;
  toolActions(query: ToolActionQuery): Answer<ToolActionRecord[]>;
  openToolActions(participantAddress: string | undefined): Answer<ToolActionRecord[]>;
  events(query: HistoryQuery): Answer<HistoryEvent[]>;
  operations(query: OperationQuery): Answer<OperationEntry[]>;
}

/** The writes of a store, each one atomic. */
export interface StoreWrites {
  saveClock(clock: ClockRecord): Answer<void>;
  updateClock(initial: ClockRecord, change: ClockChange): Answer<ClockRecord>;
  saveScheduler(scheduler: SchedulerRecord, fence: Fence | undefined): Answer<void>;
  openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence: Fence | undefined,
    clock: ClockFold | undefined,
  ): Answer<void>;
  insertToolAction(action: ToolActionRecord, fence: Fence | undefined): Answer<void>;
  updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence: Fence | undefined,
  ): Answer<boolean>;
  commitInvocation(commit: InvocationCommit, fence: Fence | undefined): Answer<void>;
  commitInvocations(commits: readonly InvocationCommit[], fence: Fence | undefined): Answer<void>;
  recordResolution(id: string, resolution: ResolutionRecord): Answer<boolean>;
}

/** The scheduler ownership leases of a store. */
export interface StoreLeases {
  get(participantAddress: string): Answer<Lease | undefined>;
  acquire(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    replacing: string | undefined,
  ): Answer<Lease | undefined>;
  release(lease: Lease): Answer<void>;
  list(): Answer<Lease[]>;
  heartbeat(ownerId: string, ttlMs: number): Answer<ProcessMember[]>;
  leave(ownerId: string): Answer<void>;
}

/** What a store is made of, and how it reports a failure of its driver. */
export interface StoreParts {
  readonly reads: StoreReads;
  readonly writes: StoreWrites;
  readonly leases: StoreLeases;
  readonly error?: (error: unknown) => unknown;
}

/**
 * A `ControlPlaneStore` answered by its parts. A part that answers at once is called synchronously,
 * so a memory call does all its work before the call returns. So does a SQLite call, except a write
 * issued after another commit in the same event-loop turn: it joins the turn's group commit and is
 * done when its promise settles; any later SQLite read or lease call commits it first, so every call
 * still sees every write issued before it.
 */
export abstract class DelegatingStore implements ControlPlaneStore {
  readonly url: string;
  readonly #reads: StoreReads;
  readonly #writes: StoreWrites;
  readonly #leases: StoreLeases;
  readonly #error: (error: unknown) => unknown;

  protected constructor(url: string, parts: StoreParts) {
    this.url = url;
    this.#reads = parts.reads;
    this.#writes = parts.writes;
    this.#leases = parts.leases;
    this.#error = parts.error ?? ((error) => error);
  }

  abstract close(): Promise<void>;

  getOperation(id: string): Promise<Operation | undefined> {
    return this.#guard(() =>
      andThen(this.#reads.invocation(id), (invocation) =>
        invocation
          ? operationFromInvocation(invocation)
          : andThen(this.#reads.toolAction(id), (action) => action && operationFromToolAction(action)),
      ),
    );
  }

  listOperations(query: OperationQuery = {}): Promise<OperationEntry[]> {
    return this.#guard(() => this.#reads.operations(query));
  }

  listEvents(query: HistoryQuery = {}): Promise<HistoryEvent[]> {
    return this.#guard(() => this.#reads.events(query));
  }

  getClock(clockAddress: string): Promise<ClockRecord | undefined> {
    return this.#guard(() => this.#reads.clock(clockAddress));
  }

  getScheduler(participantAddress: string, policyAddress: string): Promise<SchedulerRecord | undefined> {
    return this.#guard(() => this.#reads.scheduler(participantAddress, policyAddress));
  }

  listSchedulers(): Promise<SchedulerRecord[]> {
    return this.#guard(() => this.#reads.schedulers());
  }

  getInvocation(id: string): Promise<InvocationRecord | undefined> {
    return this.#guard(() => this.#reads.invocation(id));
  }

  listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]> {
    return this.#guard(() => this.#reads.openInvocations(participantAddress));
  }

  getToolAction(id: string): Promise<ToolActionRecord | undefined> {
    return this.#guard(() => this.#reads.toolAction(id));
  }

  listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]> {
    return this.#guard(() => this.#reads.toolActions(query));
  }

  listOpenToolActions(participantAddress?: string): Promise<ToolActionRecord[]> {
    return this.#guard(() => this.#reads.openToolActions(participantAddress));
  }

  saveClock(clock: ClockRecord): Promise<void> {
    return this.#guard(() => this.#writes.saveClock(clock));
  }

  updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    return this.#guard(() => this.#writes.updateClock(initial, change));
  }

  saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.saveScheduler(scheduler, fence));
  }

  openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
    clock?: ClockFold,
  ): Promise<void> {
    return this.#guard(() => this.#writes.openInvocation(invocation, scheduler, fence, clock));
  }

  insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.insertToolAction(action, fence));
  }

  updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence?: Fence,
  ): Promise<boolean> {
    return this.#guard(() => this.#writes.updateToolAction(action, expectedPhase, fence));
  }

  commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.commitInvocation(commit, fence));
  }

  commitInvocations(commits: readonly InvocationCommit[], fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.commitInvocations(commits, fence));
  }

  recordResolution(id: string, resolution: ResolutionRecord): Promise<boolean> {
    return this.#guard(() => this.#writes.recordResolution(id, resolution));
  }

  getLease(participantAddress: string): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.get(participantAddress));
  }

  acquireLease(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    options: { readonly replacing?: string } = {},
  ): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.acquire(participantAddress, ownerId, ttlMs, options.replacing));
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.#guard(() => this.#leases.release(lease));
  }

  listLeases(): Promise<Lease[]> {
    return this.#guard(() => this.#leases.list());
  }

  heartbeatProcess(ownerId: string, ttlMs: number): Promise<ProcessMember[]> {
    return this.#guard(() => this.#leases.heartbeat(ownerId, ttlMs));
  }

  leaveProcesses(ownerId: string): Promise<void> {
    return this.#guard(() => this.#leases.leave(ownerId));
  }

  /** Runs a part's work; whether it throws or rejects, the caller gets a rejection with the store's error. */
  #guard<T>(work: () => Answer<T>): Promise<T> {
    try {
      const answer = work();
      if (!(answer instanceof Promise)) return Promise.resolve(answer);
      return answer.catch((error: unknown) => {
        throw this.#error(error);
      });
    } catch (error) {
      return Promise.reject(this.#error(error));
    }
  }
}

/** `next` of an answer: at once for an answer given at once, so synchronous stores stay synchronous. */
export function andThen<T, U>(value: Answer<T>, next: (value: T) => Answer<U>): Answer<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

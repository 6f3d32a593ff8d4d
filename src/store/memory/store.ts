import type { HistoryEvent } from "../../history/index.js";
import {
  type Operation,
  operationFromInvocation,
  operationFromToolAction,
  type ResolutionRecord,
} from "../../operations/index.js";
import type { ToolActionPhase } from "../../port/index.js";
import { applyClockChange } from "../clock.js";
import type {
  ClockChange,
  ClockRecord,
  ControlPlaneStore,
  Fence,
  HistoryQuery,
  InvocationCommit,
  InvocationRecord,
  Lease,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import { MemoryLeases } from "./leases.js";
import { MemoryReads } from "./reads.js";
import { MemoryTables } from "./schema.js";
import * as writes from "./writes.js";

/** Options for the in-memory store. */
export interface MemoryStoreOptions {
  /** Milliseconds since the epoch; injected so lease expiry is testable. */
  readonly now?: () => number;
}

/** A process-local control plane: the reference semantics every durable store must match. */
export class MemoryControlPlaneStore implements ControlPlaneStore {
  readonly url = "memory:";
  readonly #tables = new MemoryTables();
  readonly #reads = new MemoryReads(this.#tables);
  readonly #leases: MemoryLeases;

  constructor(options: MemoryStoreOptions = {}) {
    this.#leases = new MemoryLeases(options.now ?? Date.now);
  }

  async getOperation(id: string): Promise<Operation | undefined> {
    const invocation = this.#reads.invocation(id);
    if (invocation) return operationFromInvocation(invocation);
    const action = this.#reads.toolAction(id);
    return action ? operationFromToolAction(action) : undefined;
  }

  async listEvents(query: HistoryQuery = {}): Promise<HistoryEvent[]> {
    return this.#reads.events(query);
  }

  async getClock(clockAddress: string): Promise<ClockRecord | undefined> {
    return this.#reads.clock(clockAddress);
  }

  async getScheduler(
    participantAddress: string,
    policyAddress: string,
  ): Promise<SchedulerRecord | undefined> {
    return this.#reads.scheduler(participantAddress, policyAddress);
  }

  async listSchedulers(): Promise<SchedulerRecord[]> {
    return this.#reads.schedulers();
  }

  async getInvocation(id: string): Promise<InvocationRecord | undefined> {
    return this.#reads.invocation(id);
  }

  async listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]> {
    return this.#reads.openInvocations(participantAddress);
  }

  async getToolAction(id: string): Promise<ToolActionRecord | undefined> {
    return this.#reads.toolAction(id);
  }

  async listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]> {
    return this.#reads.toolActions(query);
  }

  async saveClock(clock: ClockRecord): Promise<void> {
    this.#tables.clocks.set(clock.clockAddress, clock);
  }

  async updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    const next = applyClockChange(this.#tables.clocks.get(initial.clockAddress) ?? initial, change);
    this.#tables.clocks.set(next.clockAddress, next);
    return next;
  }

  async saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void> {
    this.#leases.check(fence);
    writes.putScheduler(this.#tables, scheduler);
  }

  async openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
  ): Promise<void> {
    this.#leases.check(fence);
    writes.openInvocation(this.#tables, invocation, scheduler);
  }

  async insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void> {
    this.#leases.check(fence);
    writes.insertToolAction(this.#tables, action);
  }

  async updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence?: Fence,
  ): Promise<boolean> {
    this.#leases.check(fence);
    return writes.updateToolAction(this.#tables, action, expectedPhase);
  }

  async commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void> {
    this.#leases.check(fence);
    writes.commitInvocation(this.#tables, commit);
  }

  async recordResolution(id: string, resolution: ResolutionRecord): Promise<boolean> {
    return writes.recordResolution(this.#tables, id, resolution);
  }

  async getLease(participantAddress: string): Promise<Lease | undefined> {
    return this.#leases.get(participantAddress);
  }

  async acquireLease(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    options: { readonly replacing?: string } = {},
  ): Promise<Lease | undefined> {
    return this.#leases.acquire(participantAddress, ownerId, ttlMs, options.replacing);
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#leases.release(lease);
  }

  async close(): Promise<void> {}
}

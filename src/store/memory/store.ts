import type { HistoryEvent } from "../../history/types.js";
import { operationFromInvocation, operationFromToolAction } from "../../operations/operation.js";
import type { Operation, ResolutionRecord } from "../../operations/types.js";
import type { ToolActionPhase } from "../../port/codes.js";
import { LeaseLostError, StoreConflictError } from "../errors.js";
import type {
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

/** Options for the in-memory store. */
export interface MemoryStoreOptions {
  /** Milliseconds since the epoch; injected so lease expiry is testable. */
  readonly now?: () => number;
}

/** A process-local control plane: the reference semantics every durable store must match. */
export class MemoryControlPlaneStore implements ControlPlaneStore {
  readonly url = "memory:";
  readonly #now: () => number;
  readonly #clocks = new Map<string, ClockRecord>();
  readonly #schedulers = new Map<string, SchedulerRecord>();
  readonly #invocations = new Map<string, InvocationRecord>();
  readonly #toolActions = new Map<string, ToolActionRecord>();
  readonly #toolCallKeys = new Set<string>();
  readonly #actionsByInvocation = new Map<string, string[]>();
  readonly #events: HistoryEvent[] = [];
  readonly #leases = new Map<string, Lease>();
  #tokenCounter = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async getOperation(id: string): Promise<Operation | undefined> {
    const invocation = this.#invocations.get(id);
    if (invocation) return operationFromInvocation(invocation);
    const action = this.#toolActions.get(id);
    return action ? operationFromToolAction(action) : undefined;
  }

  async listEvents(query: HistoryQuery = {}): Promise<HistoryEvent[]> {
    return this.#events.filter(
      (e) =>
        (query.participantAddress === undefined || e.participant_address === query.participantAddress) &&
        (query.episodeId === undefined || e.episode_id === query.episodeId),
    );
  }

  async getClock(clockAddress: string): Promise<ClockRecord | undefined> {
    return this.#clocks.get(clockAddress);
  }

  async getScheduler(
    participantAddress: string,
    policyAddress: string,
  ): Promise<SchedulerRecord | undefined> {
    return this.#schedulers.get(schedulerKey(participantAddress, policyAddress));
  }

  async listSchedulers(): Promise<SchedulerRecord[]> {
    return [...this.#schedulers.values()];
  }

  async getInvocation(id: string): Promise<InvocationRecord | undefined> {
    return this.#invocations.get(id);
  }

  async listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]> {
    return [...this.#invocations.values()].filter(
      (i) =>
        i.state === "running" &&
        (participantAddress === undefined || i.participantAddress === participantAddress),
    );
  }

  async getToolAction(id: string): Promise<ToolActionRecord | undefined> {
    return this.#toolActions.get(id);
  }

  async listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]> {
    const source =
      query.invocationId === undefined
        ? [...this.#toolActions.values()]
        : (this.#actionsByInvocation.get(query.invocationId) ?? []).map((id) => this.#toolActions.get(id));
    return source
      .filter((a): a is ToolActionRecord => a !== undefined)
      .filter(
        (a) =>
          (query.participantAddress === undefined || a.participantAddress === query.participantAddress) &&
          (query.phase === undefined || a.phase === query.phase),
      )
      .sort(
        (a, b) => a.invocationId.localeCompare(b.invocationId) || a.admissionOrdinal - b.admissionOrdinal,
      );
  }

  async saveClock(clock: ClockRecord): Promise<void> {
    this.#clocks.set(clock.clockAddress, clock);
  }

  async saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void> {
    this.#checkFence(fence);
    this.#schedulers.set(schedulerKey(scheduler.participantAddress, scheduler.policyAddress), scheduler);
  }

  async openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
  ): Promise<void> {
    this.#checkFence(fence);
    if (this.#invocations.has(invocation.id))
      throw new StoreConflictError(`invocation ${invocation.id} exists`);
    this.#invocations.set(invocation.id, invocation);
    this.#schedulers.set(schedulerKey(scheduler.participantAddress, scheduler.policyAddress), scheduler);
  }

  async insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void> {
    this.#checkFence(fence);
    const callKey = `${action.invocationId}\u0000${action.toolCallId}`;
    if (this.#toolActions.has(action.id) || this.#toolCallKeys.has(callKey)) {
      throw new StoreConflictError(`tool action ${action.id} exists`);
    }
    this.#toolActions.set(action.id, action);
    this.#toolCallKeys.add(callKey);
    const ids = this.#actionsByInvocation.get(action.invocationId);
    if (ids) ids.push(action.id);
    else this.#actionsByInvocation.set(action.invocationId, [action.id]);
  }

  async updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence?: Fence,
  ): Promise<boolean> {
    this.#checkFence(fence);
    const current = this.#toolActions.get(action.id);
    if (!current || current.phase !== expectedPhase) return false;
    this.#toolActions.set(action.id, action);
    return true;
  }

  async commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void> {
    this.#checkFence(fence);
    const current = this.#invocations.get(commit.invocation.id);
    if (!current || current.state !== "running") {
      throw new StoreConflictError(`invocation ${commit.invocation.id} is not open`);
    }
    this.#invocations.set(commit.invocation.id, commit.invocation);
    for (const action of commit.toolActions) this.#toolActions.set(action.id, action);
    for (const draft of commit.events) this.#events.push({ ...draft, sequence: this.#events.length + 1 });
    const s = commit.scheduler;
    this.#schedulers.set(schedulerKey(s.participantAddress, s.policyAddress), s);
  }

  async recordResolution(id: string, resolution: ResolutionRecord): Promise<boolean> {
    const action = this.#toolActions.get(id);
    if (!action || action.settlement !== "indeterminate" || action.resolution !== undefined) return false;
    this.#toolActions.set(id, { ...action, resolution, updatedAt: resolution.resolvedAt });
    return true;
  }

  async acquireLease(participantAddress: string, ownerId: string, ttlMs: number): Promise<Lease | undefined> {
    const now = this.#now();
    const current = this.#leases.get(participantAddress);
    if (current && current.ownerId !== ownerId && current.expiresAt > now) return undefined;
    const token = current && current.ownerId === ownerId ? current.token : ++this.#tokenCounter;
    const lease: Lease = { participantAddress, ownerId, token, expiresAt: now + ttlMs };
    this.#leases.set(participantAddress, lease);
    return lease;
  }

  async releaseLease(lease: Lease): Promise<void> {
    const current = this.#leases.get(lease.participantAddress);
    if (current?.token === lease.token) this.#leases.delete(lease.participantAddress);
  }

  async close(): Promise<void> {}

  #checkFence(fence: Fence | undefined): void {
    if (!fence) return;
    const lease = this.#leases.get(fence.participantAddress);
    if (!lease || lease.token !== fence.token) {
      throw new LeaseLostError(`lease of ${fence.participantAddress} is not held by token ${fence.token}`);
    }
  }
}

function schedulerKey(participantAddress: string, policyAddress: string): string {
  return `${participantAddress}\u0000${policyAddress}`;
}

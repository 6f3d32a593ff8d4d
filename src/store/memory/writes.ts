import {
  type ApprovalRecord,
  type ApprovalState,
  appendDecision,
  canonicalJson,
  headAfter,
  type OperatorDecision,
  type OperatorDecisionDraft,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  type ResolutionRecord,
  type ResourceLogEntry,
  type ToolActionPhase,
} from "../../records/index.js";
import { ChainLinker } from "../chain.js";
import { applyClockChange, foldClock } from "../clock.js";
import { ResourcePoolMovedError, StoreConflictError, serviceMoved } from "../errors.js";
import type {
  ClockChange,
  ClockFold,
  ClockRecord,
  Fence,
  InvocationCommit,
  InvocationRecord,
  SchedulerRecord,
  ServiceAdmission,
  ToolActionRecord,
} from "../types.js";
import type { MemoryLeases } from "./leases.js";
import { type MemoryTables, schedulerKey, toolCallKey } from "./schema.js";

/** The writes of the in-memory store; each checks its fence before it changes anything. */
export class MemoryWrites {
  readonly #tables: MemoryTables;
  readonly #leases: MemoryLeases;

  constructor(tables: MemoryTables, leases: MemoryLeases) {
    this.#tables = tables;
    this.#leases = leases;
  }

  /** Inserts or replaces the clock. */
  saveClock(clock: ClockRecord): void {
    this.#tables.clocks.set(clock.clockAddress, clock);
  }

  /** Changes the stored clock, or `initial` when there is none yet. */
  updateClock(initial: ClockRecord, change: ClockChange): ClockRecord {
    const next = applyClockChange(this.#tables.clocks.get(initial.clockAddress) ?? initial, change);
    this.#tables.clocks.set(next.clockAddress, next);
    return next;
  }

  /** Inserts or replaces a scheduler. */
  saveScheduler(scheduler: SchedulerRecord, fence: Fence | undefined): void {
    this.#leases.check(fence);
    this.#takeHold(scheduler)?.();
    this.#putScheduler(scheduler);
  }

  /** Inserts a running invocation with its scheduler (and clock change); conflict when the id exists. */
  openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence: Fence | undefined,
    clock: ClockFold | undefined,
    admission?: ServiceAdmission,
  ): void {
    this.#leases.check(fence);
    const tables = this.#tables;
    if (admission) {
      const stored = tables.services.get(admission.participantAddress)?.revision;
      if (stored !== admission.revision) throw serviceMoved(admission, stored);
    }
    // The clock first, as the SQL stores do: a moved clock refuses the open before its id is looked at.
    const folded = clock && foldClock(tables.clocks.get(clock.expected.clockAddress), clock);
    if (tables.invocations.has(invocation.id))
      throw new StoreConflictError(`invocation ${invocation.id} exists`);
    const take = this.#takeHold(scheduler);
    take?.();
    if (folded) tables.clocks.set(folded.clockAddress, folded);
    tables.invocations.set(invocation.id, invocation);
    tables.indexCreation({ createdAt: invocation.createdAt, id: invocation.id, invocation: true });
    this.#putScheduler(scheduler);
  }

  /** Inserts a tool action claim; conflict when its id or tool call exists. */
  insertToolAction(action: ToolActionRecord, fence: Fence | undefined): void {
    this.#leases.check(fence);
    const tables = this.#tables;
    const callKey = toolCallKey(action.invocationId, action.toolCallId);
    if (!tables.invocations.has(action.invocationId)) {
      throw new StoreConflictError(`tool action ${action.id} names no invocation ${action.invocationId}`);
    }
    if (tables.toolActions.has(action.id) || tables.toolCallKeys.has(callKey)) {
      throw new StoreConflictError(`tool action ${action.id} exists`);
    }
    this.#addToolAction(action);
  }

  /** Replaces a tool action while it is in `expectedPhase`. */
  updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence: Fence | undefined,
  ): boolean {
    this.#leases.check(fence);
    const current = this.#tables.toolActions.get(action.id);
    if (!current || current.phase !== expectedPhase) return false;
    this.#tables.toolActions.set(action.id, action);
    return true;
  }

  /**
   * Closes several running invocations together, all or nothing: every commit, its state and its
   * new tool-call keys, is checked before any is changed (as one SQL transaction would roll back).
   */
  commitInvocations(taken: Iterable<InvocationCommit>, fence: Fence | undefined): void {
    const commits = [...taken];
    this.#leases.check(fence);
    const batch = { invocations: new Set<string>(), callKeys: new Set<string>() };
    for (const commit of commits) this.#checkCommit(commit, batch);
    const chains = new ChainLinker((p) => this.#tables.chains.get(p));
    for (const commit of commits) this.#applyCommit(commit, chains);
    for (const head of chains.heads()) this.#tables.chains.set(head.participant_address, head);
  }

  /** Closes a running invocation with its settlements, events and scheduler. */
  commitInvocation(commit: InvocationCommit, fence: Fence | undefined): void {
    this.commitInvocations([commit], fence);
  }

  /** Throws `StoreConflictError` when the invocation is not open or a new tool call's key is taken. */
  #checkCommit(commit: InvocationCommit, batch: { invocations: Set<string>; callKeys: Set<string> }): void {
    const tables = this.#tables;
    const id = commit.invocation.id;
    // An invocation twice in one batch: the second commit finds it closed, as in a SQL transaction.
    if (tables.invocations.get(id)?.state !== "running" || batch.invocations.has(id)) {
      throw new StoreConflictError(`invocation ${id} is not open`);
    }
    batch.invocations.add(id);
    for (const action of commit.toolActions) {
      if (tables.toolActions.has(action.id)) continue;
      const callKey = toolCallKey(action.invocationId, action.toolCallId);
      if (tables.toolCallKeys.has(callKey) || batch.callKeys.has(callKey)) {
        throw new StoreConflictError(`tool call ${action.toolCallId} of ${action.invocationId} exists`);
      }
      batch.callKeys.add(callKey);
    }
  }

  #applyCommit(commit: InvocationCommit, chains: ChainLinker): void {
    const tables = this.#tables;
    const added = commit.toolActions.filter((a) => !tables.toolActions.has(a.id));
    tables.invocations.set(commit.invocation.id, commit.invocation);
    for (const action of commit.toolActions) {
      if (added.includes(action)) this.#addToolAction(action);
      else tables.toolActions.set(action.id, action);
    }
    for (const draft of commit.events) {
      const event = { ...draft, sequence: tables.events.length + 1 };
      tables.events.push({ ...event, chain_digest: chains.link(event, commit.anchor) });
    }
    this.#putScheduler(commit.scheduler);
  }

  /** Records a resolution on an indeterminate, unresolved tool action. */
  recordResolution(id: string, resolution: ResolutionRecord, decision: OperatorDecisionDraft): boolean {
    const action = this.#tables.toolActions.get(id);
    if (action?.settlement !== "indeterminate" || action.resolution !== undefined) return false;
    this.#tables.toolActions.set(id, { ...action, resolution, updatedAt: resolution.resolvedAt });
    this.#appendDecision(decision);
    return true;
  }

  /** Sets an admitted tool action's approval when its current one is in state `expected`. */
  recordApproval(
    id: string,
    approval: ApprovalRecord,
    expected: ApprovalState | undefined,
    decision: OperatorDecisionDraft | undefined,
  ): boolean {
    const action = this.#tables.toolActions.get(id);
    if (action?.phase !== "admitted" || action.approval?.state !== expected) return false;
    const updatedAt = approval.decidedAt ?? approval.requestedAt;
    this.#tables.toolActions.set(id, { ...action, approval, updatedAt });
    if (decision) this.#appendDecision(decision);
    return true;
  }

  /** Appends a decision and saves the schedulers it changes, once the fence holds. */
  recordDecision(
    decision: OperatorDecisionDraft,
    schedulers: readonly SchedulerRecord[],
    fence: Fence | undefined,
  ): OperatorDecision {
    this.#leases.check(fence);
    for (const scheduler of schedulers) this.#putScheduler(scheduler);
    return this.#appendDecision(decision);
  }

  /** Writes a participant's service record over the revision before it, with its decision. */
  saveParticipantService(record: ParticipantServiceRecord, decision?: OperatorDecisionDraft): boolean {
    const stored = this.#tables.services.get(record.participantAddress);
    if ((stored?.revision ?? 0) !== record.revision - 1) return false;
    this.#tables.services.set(record.participantAddress, record);
    if (decision) this.#appendDecision(decision);
    return true;
  }

  /** Records a pacing deviation once per participant and ref. */
  recordPacingDeviation(record: PacingDeviationRecord): boolean {
    const byRef =
      this.#tables.pacing.get(record.participantAddress) ?? new Map<string, PacingDeviationRecord>();
    if (byRef.has(record.ref)) return false;
    byRef.set(record.ref, record);
    this.#tables.pacing.set(record.participantAddress, byRef);
    return true;
  }

  #appendDecision(draft: OperatorDecisionDraft): OperatorDecision {
    const decision = appendDecision(this.#tables.decisionHead, draft);
    this.#tables.decisions.push(decision);
    this.#tables.decisionHead = headAfter(decision);
    return decision;
  }

  /**
   * As schema step 19's trigger: a new hold with pool versions is written only while each pool is at its
   * version (else `ResourcePoolMovedError`, before anything changed); the returned step moves each on.
   */
  #takeHold(scheduler: SchedulerRecord): (() => void) | undefined {
    const held = scheduler.resources?.held;
    if (!held?.poolVersions) return undefined;
    const stored = this.#tables.schedulers.get(
      schedulerKey(scheduler.participantAddress, scheduler.policyAddress),
    );
    if (stored?.resources?.held?.operationId === held.operationId) return undefined;
    const pools = this.#tables.pools;
    const versions = Object.entries(held.poolVersions);
    for (const [key, version] of versions)
      if ((pools.get(key) ?? 0) !== version)
        throw new ResourcePoolMovedError(
          `resource pool ${key} is at version ${pools.get(key) ?? 0}, the hold was checked at ${version}`,
        );
    return () => {
      for (const [key, version] of versions) pools.set(key, version + 1);
    };
  }

  #putScheduler(scheduler: SchedulerRecord): void {
    const key = schedulerKey(scheduler.participantAddress, scheduler.policyAddress);
    this.#recordBudgetEvent(key, scheduler);
    this.#tables.schedulers.set(key, scheduler);
  }

  /** As schema step 22's trigger: the ledger's last transition, recorded once by its number. */
  #recordBudgetEvent(key: string, scheduler: SchedulerRecord): void {
    const entry = scheduler.resources?.log.at(-1);
    if (entry?.seq === undefined) return;
    const { budgetEvents, budgetEventKeys } = this.#tables;
    const eventKey = `${key}\u0000${entry.seq}`;
    if (budgetEventKeys.has(eventKey)) return;
    budgetEventKeys.add(eventKey);
    budgetEvents.push({
      sequence: budgetEvents.length + 1,
      participantAddress: scheduler.participantAddress,
      policyAddress: scheduler.policyAddress,
      seq: entry.seq,
      // A copy, as a durable store reads its canonical text back.
      entry: JSON.parse(canonicalJson(entry)) as ResourceLogEntry,
    });
  }

  #addToolAction(action: ToolActionRecord): void {
    const tables = this.#tables;
    tables.toolActions.set(action.id, action);
    tables.indexCreation({ createdAt: action.createdAt, id: action.id, invocation: false });
    tables.toolCallKeys.add(toolCallKey(action.invocationId, action.toolCallId));
    const ids = tables.actionsByInvocation.get(action.invocationId);
    if (ids) ids.push(action.id);
    else tables.actionsByInvocation.set(action.invocationId, [action.id]);
  }
}

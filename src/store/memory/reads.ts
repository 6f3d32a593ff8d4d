import {
  type ChainHead,
  DEFAULT_OPERATION_LIMIT,
  type HistoryEvent,
  invocationEntry,
  type Operation,
  type OperationCursor,
  type OperationEntry,
  type OperationQuery,
  type OperatorChainHead,
  type OperatorDecision,
  operationFromInvocation,
  operationFromToolAction,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  queriedKinds,
  type ResourceBudgetEventQuery,
  type ResourceBudgetEventRecord,
  type ResourcePoolVersion,
  toolActionEntry,
  toolActionOperationState,
} from "../../records/index.js";
import type {
  ClockRecord,
  HistoryQuery,
  InvocationRecord,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import { type CreationKey, type MemoryTables, schedulerKey } from "./schema.js";

/** The reads of the in-memory store. */
export class MemoryReads {
  readonly #tables: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#tables = tables;
  }

  /** One clock. */
  getClock(clockAddress: string): ClockRecord | undefined {
    return this.#tables.clocks.get(clockAddress);
  }

  /** One scheduler. */
  getScheduler(participantAddress: string, policyAddress: string): SchedulerRecord | undefined {
    return this.#tables.schedulers.get(schedulerKey(participantAddress, policyAddress));
  }

  /** One participant's service record. */
  getParticipantService(participantAddress: string): ParticipantServiceRecord | undefined {
    return this.#tables.services.get(participantAddress);
  }

  /** A page of budget events in sequence order; `last` reads the end first. */
  listBudgetEvents(query: ResourceBudgetEventQuery): ResourceBudgetEventRecord[] {
    for (const n of [query.afterSequence, query.limit, query.last])
      if (n !== undefined && (!Number.isSafeInteger(n) || n < 0))
        throw new RangeError(`a page bound is a whole number from 0, not ${n}`);
    const events = this.#tables.budgetEvents;
    const mine = (e: ResourceBudgetEventRecord) =>
      query.participantAddress === undefined || e.participantAddress === query.participantAddress;
    // Sequence n is at index n - 1, so a page starts at its index.
    const start = Math.min(query.afterSequence ?? 0, events.length);
    const found: ResourceBudgetEventRecord[] = [];
    if (query.last !== undefined) {
      for (let j = events.length - 1; j >= start && found.length < query.last; j -= 1) {
        const e = events[j] as ResourceBudgetEventRecord;
        if (mine(e)) found.push(e);
      }
      return found.reverse().slice(0, query.limit);
    }
    for (let j = start; j < events.length && found.length < query.limit; j += 1) {
      const e = events[j] as ResourceBudgetEventRecord;
      if (mine(e)) found.push(e);
    }
    return found;
  }

  /** How many budget events the store keeps, of one participant when given. */
  countBudgetEvents(participantAddress?: string): number {
    const events = this.#tables.budgetEvents;
    if (participantAddress === undefined) return events.length;
    return events.filter((e) => e.participantAddress === participantAddress).length;
  }

  /** The pacing deviations of one participant, or of all, by participant then recording time. */
  listPacingDeviations(participantAddress?: string): PacingDeviationRecord[] {
    const participants = [...this.#tables.pacing.keys()]
      .filter((p) => participantAddress === undefined || p === participantAddress)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const byTime = (a: PacingDeviationRecord, b: PacingDeviationRecord) =>
      a.recordedAt < b.recordedAt
        ? -1
        : a.recordedAt > b.recordedAt
          ? 1
          : a.ref < b.ref
            ? -1
            : a.ref > b.ref
              ? 1
              : 0;
    return participants.flatMap((p) => [...(this.#tables.pacing.get(p)?.values() ?? [])].sort(byTime));
  }

  /** Every participant's service record, by participant address. */
  listParticipantServices(): ParticipantServiceRecord[] {
    return [...this.#tables.services.values()].sort((a, b) =>
      a.participantAddress < b.participantAddress ? -1 : a.participantAddress > b.participantAddress ? 1 : 0,
    );
  }

  /** Every shared v3 pool's version, by pool key. */
  listResourcePools(): ResourcePoolVersion[] {
    return [...this.#tables.pools.entries()]
      .map(([poolKey, version]) => ({ poolKey, version }))
      .sort((a, b) => (a.poolKey < b.poolKey ? -1 : a.poolKey > b.poolKey ? 1 : 0));
  }

  /** Every scheduler, in the order they were first saved. */
  listSchedulers(): SchedulerRecord[] {
    return [...this.#tables.schedulers.values()];
  }

  /** One invocation. */
  getInvocation(id: string): InvocationRecord | undefined {
    return this.#tables.invocations.get(id);
  }

  /** The operation of each id, in order: its invocation's, else its tool action's, else undefined. */
  getOperations(ids: readonly string[]): (Operation | undefined)[] {
    const { invocations, toolActions } = this.#tables;
    return ids.map((id) => {
      const invocation = invocations.get(id);
      if (invocation) return operationFromInvocation(invocation);
      const action = toolActions.get(id);
      return action && operationFromToolAction(action);
    });
  }

  /** Running invocations, in the order they were opened. */
  listOpenInvocations(participantAddress?: string): InvocationRecord[] {
    return [...this.#tables.invocations.values()].filter(
      (i) =>
        i.state === "running" &&
        (participantAddress === undefined || i.participantAddress === participantAddress),
    );
  }

  /** One tool action. */
  getToolAction(id: string): ToolActionRecord | undefined {
    return this.#tables.toolActions.get(id);
  }

  /** Tool actions matching every given filter, by invocation then admission order. */
  listToolActions(query: ToolActionQuery): ToolActionRecord[] {
    const { toolActions, actionsByInvocation } = this.#tables;
    const source =
      query.invocationId === undefined
        ? [...toolActions.values()]
        : (actionsByInvocation.get(query.invocationId) ?? []).map((id) => toolActions.get(id));
    return source
      .filter((a): a is ToolActionRecord => a !== undefined)
      .filter(
        (a) =>
          (query.participantAddress === undefined || a.participantAddress === query.participantAddress) &&
          (query.phase === undefined || a.phase === query.phase),
      )
      .sort(
        (a, b) => compareCodeUnits(a.invocationId, b.invocationId) || a.admissionOrdinal - b.admissionOrdinal,
      );
  }

  /** Tool actions of running invocations, by invocation then admission order. */
  listOpenToolActions(participantAddress?: string): ToolActionRecord[] {
    const { toolActions, actionsByInvocation } = this.#tables;
    return this.listOpenInvocations(participantAddress)
      .sort((a, b) => compareCodeUnits(a.id, b.id))
      .flatMap((i) => (actionsByInvocation.get(i.id) ?? []).map((id) => toolActions.get(id)))
      .filter((a): a is ToolActionRecord => a !== undefined)
      .sort(
        (a, b) => compareCodeUnits(a.invocationId, b.invocationId) || a.admissionOrdinal - b.admissionOrdinal,
      );
  }

  /** Operations matching every filter, newest first: a walk back through creation order to `limit` matches. */
  listOperations(query: OperationQuery = {}): OperationEntry[] {
    const kinds = queriedKinds(query);
    const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
    const { invocations, toolActions } = this.#tables;
    const byCreation = this.#tables.byCreation();
    const found: OperationEntry[] = [];
    for (let i = newerThan(byCreation, query.before) - 1; i >= 0 && found.length < limit; i -= 1) {
      const key = byCreation[i] as CreationKey;
      if (query.since !== undefined && key.createdAt < query.since) break;
      if (!(key.invocation ? kinds.invocations : kinds.toolActions)) continue;
      const record = key.invocation ? invocations.get(key.id) : toolActions.get(key.id);
      if (!record) continue;
      if (query.participantAddress !== undefined && record.participantAddress !== query.participantAddress)
        continue;
      if (key.invocation) {
        const invocation = record as InvocationRecord;
        if (query.state === undefined || invocation.state === query.state)
          found.push(invocationEntry(invocation));
      } else {
        const action = record as ToolActionRecord;
        if (query.state === undefined || toolActionOperationState(action) === query.state)
          found.push(toolActionEntry(action));
      }
    }
    return found;
  }

  /** Ids that start or end with `fragment`, bytewise ascending, at most `limit`. */
  findOperationIds(fragment: string, limit: number): string[] {
    if (fragment === "" || limit < 1) return [];
    const { invocations, toolActions } = this.#tables;
    const found: string[] = [];
    for (const id of [...invocations.keys(), ...toolActions.keys()])
      if (id.startsWith(fragment) || id.endsWith(fragment)) found.push(id);
    return found.sort(compareCodeUnits).slice(0, limit);
  }

  /** At most `limit` events after `afterSequence`, in commit order (sequence n is at index n - 1). */
  readChainPage(afterSequence: number, limit: number): HistoryEvent[] {
    const from = Math.max(0, Math.trunc(afterSequence));
    return this.#tables.events.slice(from, from + Math.max(0, Math.trunc(limit)));
  }

  /** At most `limit` operator decisions after `afterSequence` (decision n is at index n - 1). */
  readDecisionPage(afterSequence: number, limit: number): OperatorDecision[] {
    const from = Math.max(0, Math.trunc(afterSequence));
    return this.#tables.decisions.slice(from, from + Math.max(0, Math.trunc(limit)));
  }

  /** The end of the operator chain. */
  getDecisionHead(): OperatorChainHead {
    return this.#tables.decisionHead;
  }

  /** The memory store chains every event it holds. */
  historyChained(): boolean {
    return true;
  }

  /** Every participant's chain, ordered by participant (bytewise). */
  listChainHeads(): ChainHead[] {
    return [...this.#tables.chains.values()].sort((a, b) =>
      compareCodeUnits(a.participant_address, b.participant_address),
    );
  }

  /** History events matching every given filter, in commit order. */
  listEvents(query: HistoryQuery = {}): HistoryEvent[] {
    const { events } = this.#tables;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    for (const n of [query.afterSequence, query.limit, query.last])
      if (n !== undefined && (!Number.isSafeInteger(n) || n < 0))
        throw new RangeError(`a page bound is a whole number from 0, not ${n}`);
    // Sequences are ascending from 1 in the array, so a page starts with a binary search.
    let i = 0;
    if (query.afterSequence !== undefined) {
      let hi = events.length;
      while (i < hi) {
        const mid = (i + hi) >>> 1;
        if ((events[mid] as HistoryEvent).sequence <= query.afterSequence) i = mid + 1;
        else hi = mid;
      }
    }
    const found: HistoryEvent[] = [];
    if (query.last !== undefined) {
      // From the end backwards, so the last N cost O(N) plus the events of others after them.
      for (let j = events.length - 1; j >= i && found.length < query.last; j -= 1) {
        const e = events[j] as HistoryEvent;
        if (
          (query.participantAddress === undefined || e.participant_address === query.participantAddress) &&
          (query.episodeId === undefined || e.episode_id === query.episodeId)
        )
          found.push(e);
      }
      return found.reverse().slice(0, limit);
    }
    for (; i < events.length && found.length < limit; i += 1) {
      const e = events[i] as HistoryEvent;
      if (
        (query.participantAddress === undefined || e.participant_address === query.participantAddress) &&
        (query.episodeId === undefined || e.episode_id === query.episodeId)
      )
        found.push(e);
    }
    return found;
  }
}

/** Byte order, as SQL stores sort text, so every store lists in the same order. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The index of the first key at or after `cursor` in creation order (all of them without one): where a page starts. */
function newerThan(keys: readonly CreationKey[], cursor: OperationCursor | undefined): number {
  if (cursor === undefined) return keys.length;
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as CreationKey;
    const before =
      key.createdAt < cursor.createdAt || (key.createdAt === cursor.createdAt && key.id < cursor.id);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

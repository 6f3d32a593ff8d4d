import {
  DEFAULT_OPERATION_LIMIT,
  type HistoryEvent,
  invocationEntry,
  mergeNewestFirst,
  type OperationEntry,
  type OperationQuery,
  queriedKinds,
  toolActionEntry,
} from "../../records/index.js";
import type {
  ClockRecord,
  HistoryQuery,
  InvocationRecord,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import { schedulerKey } from "./rows.js";
import type { MemoryTables } from "./schema.js";

/** The reads of the in-memory store. */
export class MemoryReads {
  readonly #tables: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#tables = tables;
  }

  /** One clock. */
  clock(clockAddress: string): ClockRecord | undefined {
    return this.#tables.clocks.get(clockAddress);
  }

  /** One scheduler. */
  scheduler(participantAddress: string, policyAddress: string): SchedulerRecord | undefined {
    return this.#tables.schedulers.get(schedulerKey(participantAddress, policyAddress));
  }

  /** Every scheduler, in the order they were first saved. */
  schedulers(): SchedulerRecord[] {
    return [...this.#tables.schedulers.values()];
  }

  /** One invocation. */
  invocation(id: string): InvocationRecord | undefined {
    return this.#tables.invocations.get(id);
  }

  /** Running invocations, in the order they were opened. */
  openInvocations(participantAddress: string | undefined): InvocationRecord[] {
    return [...this.#tables.invocations.values()].filter(
      (i) =>
        i.state === "running" &&
        (participantAddress === undefined || i.participantAddress === participantAddress),
    );
  }

  /** One tool action. */
  toolAction(id: string): ToolActionRecord | undefined {
    return this.#tables.toolActions.get(id);
  }

  /** Tool actions matching every given filter, by invocation then admission order. */
  toolActions(query: ToolActionQuery): ToolActionRecord[] {
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

  /** Operations matching every filter, newest first: a scan, as the memory store keeps no indexes. */
  operations(query: OperationQuery): OperationEntry[] {
    const kinds = queriedKinds(query);
    const chosen = (r: { participantAddress: string; createdAt: string }) =>
      (query.participantAddress === undefined || r.participantAddress === query.participantAddress) &&
      (query.since === undefined || r.createdAt >= query.since);
    const inState = (e: OperationEntry) => query.state === undefined || e.state === query.state;
    const invocations = kinds.invocations
      ? [...this.#tables.invocations.values()].filter(chosen).map(invocationEntry).filter(inState)
      : [];
    const toolActions = kinds.toolActions
      ? [...this.#tables.toolActions.values()].filter(chosen).map(toolActionEntry).filter(inState)
      : [];
    return mergeNewestFirst([invocations, toolActions], query.limit ?? DEFAULT_OPERATION_LIMIT);
  }

  /** History events matching every given filter, in commit order. */
  events(query: HistoryQuery): HistoryEvent[] {
    return this.#tables.events.filter(
      (e) =>
        (query.participantAddress === undefined || e.participant_address === query.participantAddress) &&
        (query.episodeId === undefined || e.episode_id === query.episodeId),
    );
  }
}

/** Byte order, as SQL stores sort text, so every store lists in the same order. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { InvocationRecord } from "../scheduler.js";
import type { ToolActionRecord } from "../tool-action.js";
import { type Operation, OperationKind, type OperationState } from "./operation.js";
import { operationFromInvocation, operationFromToolAction } from "./view.js";

/** Filters of an operation listing; every one that is set must match. */
export interface OperationQuery {
  readonly participantAddress?: string;
  readonly state?: OperationState;
  readonly kind?: OperationKind;
  /** Only operations created at or after this time (ISO-8601 UTC, microseconds, as stored). */
  readonly since?: string;
  /** At most this many, newest first; default `DEFAULT_OPERATION_LIMIT`. */
  readonly limit?: number;
  /** Only operations after this one in newest-first order (older, or as old with a smaller id): the next page. */
  readonly before?: OperationCursor;
}

/** Where a page of an operation listing ended: the last entry's creation time and id. */
export interface OperationCursor {
  readonly createdAt: string;
  readonly id: string;
}

/** How many operations a listing returns when no limit is given. */
export const DEFAULT_OPERATION_LIMIT = 50;

/** One row of an operation listing: the operation, its participant and when it was created. */
export interface OperationEntry extends Operation {
  readonly participantAddress: string;
  readonly createdAt: string;
}

/**
 * The one-column conditions that select a tool action in each operation state. A settled state is
 * its settlement alone (only settled actions have one); `succeeded` is two settlements, each listed
 * on its own so every condition is an equality an index answers in order.
 */
export const TOOL_ACTION_STATE_CONDITIONS: Readonly<
  Record<OperationState, readonly (readonly ["phase" | "settlement", string])[]>
> = {
  accepted: [["phase", "admitted"]],
  running: [["phase", "dispatched"]],
  succeeded: [
    ["settlement", "succeeded"],
    ["settlement", "partial_success"],
  ],
  failed: [["settlement", "failed"]],
  cancelled: [["settlement", "withheld"]],
  indeterminate: [["settlement", "indeterminate"]],
};

/** The invocation states an operation state can be (an invocation is never accepted, cancelled or indeterminate). */
export function invocationStateMatches(state: OperationState): boolean {
  return state === "running" || state === "succeeded" || state === "failed";
}

/** Whether the listing asks for outer invocations, and for tool actions. */
export function queriedKinds(query: OperationQuery): { invocations: boolean; toolActions: boolean } {
  return {
    invocations:
      query.kind !== OperationKind.tool_action &&
      (query.state === undefined || invocationStateMatches(query.state)),
    toolActions: query.kind !== OperationKind.scheduler_invocation,
  };
}

/** The listing entry of an outer invocation. */
export function invocationEntry(invocation: InvocationRecord): OperationEntry {
  return {
    ...operationFromInvocation(invocation),
    participantAddress: invocation.participantAddress,
    createdAt: invocation.createdAt,
  };
}

/** The listing entry of a tool action. */
export function toolActionEntry(action: ToolActionRecord): OperationEntry {
  return {
    ...operationFromToolAction(action),
    participantAddress: action.participantAddress,
    createdAt: action.createdAt,
  };
}

/** Newest first: by creation time, then by id, both bytewise descending, the same in every store. */
export function newestFirst(a: OperationEntry, b: OperationEntry): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Merges lists that are each newest first into the first `limit` entries overall. */
export function mergeNewestFirst(
  lists: readonly (readonly OperationEntry[])[],
  limit: number,
): OperationEntry[] {
  return lists.flat().sort(newestFirst).slice(0, limit);
}

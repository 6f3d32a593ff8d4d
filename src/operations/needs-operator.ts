import { newestFirst, type OperationEntry, OperationKind, OperationState } from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";

/**
 * What an operation waits for a person to do. Each kind is one operator decision; a listing marks
 * every row with its kind, so a new kind (a pending approval) is one more member and one more query.
 */
export const OperatorNeed = {
  /** An indeterminate tool action no operator has resolved: `raes resolve` decides whether its effect happened. */
  resolution: "resolution",
  /** A tool call held for approval: `raes approve` dispatches it, `raes deny` withholds it. */
  pending_approval: "pending_approval",
} as const;
/** An operator need. */
export type OperatorNeed = (typeof OperatorNeed)[keyof typeof OperatorNeed];

/** A listed operation that waits for a person, and for what. */
export interface OperatorWait {
  readonly need: OperatorNeed;
  readonly entry: OperationEntry;
}

/** The filters `--needs-operator` combines with. */
export interface OperatorWaitQuery {
  readonly participantAddress?: string;
  readonly since?: string;
  readonly limit: number;
}

/** The most indeterminate (or admitted) actions one listing reads to find those that wait. */
const INDETERMINATE_CAP = 100_000;

/**
 * Exactly what waits for a person, newest first, at most `limit`: each unresolved indeterminate tool
 * action and each call held for approval whose approval is still pending (a resolved or decided one
 * waits for nothing, so it is not listed).
 */
export async function listOperatorWaits(
  store: ControlPlaneStore,
  query: OperatorWaitQuery,
): Promise<OperatorWait[]> {
  const filters = {
    kind: OperationKind.tool_action,
    ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
    ...(query.since === undefined ? {} : { since: query.since }),
    limit: INDETERMINATE_CAP,
  };
  const indeterminate = await store.listOperations({ ...filters, state: OperationState.indeterminate });
  // Held calls are admitted (accepted) until decided: few at any time.
  const admitted = await store.listOperations({ ...filters, state: OperationState.accepted });
  const waits: OperatorWait[] = [
    ...indeterminate
      .filter((entry) => entry.resolution === undefined)
      .map((entry) => ({ need: OperatorNeed.resolution, entry })),
    ...admitted
      .filter((entry) => entry.approval?.state === "pending")
      .map((entry) => ({ need: OperatorNeed.pending_approval, entry })),
  ];
  return waits.sort((a, b) => newestFirst(a.entry, b.entry)).slice(0, query.limit);
}

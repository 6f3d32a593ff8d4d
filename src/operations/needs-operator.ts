import { type OperationEntry, OperationKind, OperationState } from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";

/**
 * What an operation waits for a person to do. Each kind is one operator decision; a listing marks
 * every row with its kind, so a new kind (a pending approval) is one more member and one more query.
 */
export const OperatorNeed = {
  /** An indeterminate tool action no operator has resolved: `raes resolve` decides whether its effect happened. */
  resolution: "resolution",
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

/** The most indeterminate actions one listing reads to find the unresolved ones. */
const INDETERMINATE_CAP = 100_000;

/**
 * Exactly what waits for a person, newest first, at most `limit`: each unresolved indeterminate tool
 * action (a resolved one waits for nothing, so it is not listed).
 */
export async function listOperatorWaits(
  store: ControlPlaneStore,
  query: OperatorWaitQuery,
): Promise<OperatorWait[]> {
  const indeterminate = await store.listOperations({
    kind: OperationKind.tool_action,
    state: OperationState.indeterminate,
    ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
    ...(query.since === undefined ? {} : { since: query.since }),
    limit: INDETERMINATE_CAP,
  });
  return indeterminate
    .filter((entry) => entry.resolution === undefined)
    .slice(0, query.limit)
    .map((entry) => ({ need: OperatorNeed.resolution, entry }));
}

import {
  newestFirst,
  type OperationCursor,
  type OperationEntry,
  OperationKind,
  OperationState,
} from "../records/index.js";
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

/** Operations one read of a listing takes while it looks for those that wait. */
const PAGE = 1_000;

/**
 * Exactly what waits for a person, newest first, at most `limit`: each unresolved indeterminate tool
 * action and each call held for approval whose approval is still pending (a resolved or decided one
 * waits for nothing, so it is not listed). Each kind is read a page at a time, newest first, until
 * `limit` of it wait or none is left: however many were resolved, an older one that waits is found,
 * and no more than a page and the answer is held at once.
 */
export async function listOperatorWaits(
  store: ControlPlaneStore,
  query: OperatorWaitQuery,
): Promise<OperatorWait[]> {
  const filters = {
    kind: OperationKind.tool_action,
    ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
    ...(query.since === undefined ? {} : { since: query.since }),
  };
  const waiting = async (
    state: OperationState,
    need: OperatorNeed,
    waits: (entry: OperationEntry) => boolean,
  ): Promise<OperatorWait[]> => {
    const found: OperatorWait[] = [];
    // Paged here, not by the store's operationPages: this module is loaded by commands' --help,
    // which must load no store code (test/cli/program.test.ts).
    let before: OperationCursor | undefined;
    for (;;) {
      const page = await store.listOperations({
        ...filters,
        state,
        limit: PAGE,
        ...(before ? { before } : {}),
      });
      for (const entry of page) {
        if (!waits(entry)) continue;
        found.push({ need, entry });
        if (found.length >= query.limit) return found;
      }
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) return found;
      before = { createdAt: last.createdAt, id: last.id };
    }
  };
  const unresolved = await waiting(
    OperationState.indeterminate,
    OperatorNeed.resolution,
    (entry) => entry.resolution === undefined,
  );
  // Held calls are admitted (accepted) until decided.
  const held = await waiting(
    OperationState.accepted,
    OperatorNeed.pending_approval,
    (entry) => entry.approval?.state === "pending",
  );
  return [...unresolved, ...held].sort((a, b) => newestFirst(a.entry, b.entry)).slice(0, query.limit);
}

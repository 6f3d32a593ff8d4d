import type { HistoryEvent, OperationEntry, OperationQuery } from "../records/index.js";
import { DEFAULT_OPERATION_LIMIT } from "../records/index.js";
import type { ControlPlaneStore, HistoryQuery } from "./types.js";

/** How many events or operations one page read holds: what a streaming reader keeps at a time. */
export const PAGE_SIZE = 1_000;

/**
 * The events matching `query` (its page bounds aside), in commit order, read `pageSize` at a time:
 * each page starts after the last sequence of the one before, so memory holds one page, however
 * long the history.
 *
 * @example
 * for await (const page of eventPages(store, { participantAddress })) for (const e of page) print(e);
 */
export async function* eventPages(
  store: Pick<ControlPlaneStore, "listEvents">,
  query: HistoryQuery = {},
  pageSize = PAGE_SIZE,
): AsyncGenerator<HistoryEvent[]> {
  const { afterSequence: _after, limit: _limit, ...filters } = query;
  let after: number | undefined;
  for (;;) {
    const page = await store.listEvents({
      ...filters,
      ...(after === undefined ? {} : { afterSequence: after }),
      limit: pageSize,
    });
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = (page[page.length - 1] as HistoryEvent).sequence;
  }
}

/**
 * The operations matching `query`, newest first, at most its `limit` (default
 * `DEFAULT_OPERATION_LIMIT`), read `pageSize` at a time: each page starts after the last entry of
 * the one before.
 */
export async function* operationPages(
  store: Pick<ControlPlaneStore, "listOperations">,
  query: OperationQuery = {},
  pageSize = PAGE_SIZE,
): AsyncGenerator<OperationEntry[]> {
  const { before: _before, limit = DEFAULT_OPERATION_LIMIT, ...filters } = query;
  let left = limit;
  let before: OperationEntry | undefined;
  while (left > 0) {
    const size = Math.min(pageSize, left);
    const page = await store.listOperations({
      ...filters,
      ...(before === undefined ? {} : { before: { createdAt: before.createdAt, id: before.id } }),
      limit: size,
    });
    if (page.length > 0) yield page;
    if (page.length < size) return;
    left -= page.length;
    before = page[page.length - 1];
  }
}

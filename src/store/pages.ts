import type { HistoryEvent, OperationCursor, OperationEntry, OperationQuery } from "../records/index.js";
import { DEFAULT_OPERATION_LIMIT, newestFirst } from "../records/index.js";
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

/**
 * Every operation, oldest first, read `pageSize` at a time: the listing is walked newest first once,
 * keeping only where each page ends (one cursor per page), then each page is read again from the
 * oldest and given back reversed. Memory holds one page and the cursors, however many operations
 * there are. An operation created after the walk began is left out.
 */
export async function* operationPagesOldestFirst(
  store: Pick<ControlPlaneStore, "listOperations">,
  pageSize = PAGE_SIZE,
): AsyncGenerator<OperationEntry[]> {
  const ends: OperationCursor[] = [];
  let newest: OperationEntry | undefined;
  for await (const page of operationPages(store, { limit: Number.MAX_SAFE_INTEGER }, pageSize)) {
    newest ??= page[0];
    const last = page[page.length - 1] as OperationEntry;
    ends.push({ createdAt: last.createdAt, id: last.id });
  }
  if (newest === undefined) return;
  for (let k = ends.length - 1; k >= 1; k -= 1) {
    const page = await store.listOperations({ before: ends[k - 1] as OperationCursor, limit: pageSize });
    yield page.reverse();
  }
  // The newest page: read down to where it ended, leaving out what was created since the walk.
  const first: OperationEntry[] = [];
  const end = ends[0] as OperationCursor;
  let before: OperationCursor | undefined;
  for (;;) {
    const page = await store.listOperations({ ...(before ? { before } : {}), limit: pageSize });
    for (const entry of page) if (newestFirst(entry, newest) >= 0) first.push(entry);
    const last = page[page.length - 1];
    if (!last || page.length < pageSize || newestFirst(last, end as OperationEntry) >= 0) break;
    before = { createdAt: last.createdAt, id: last.id };
  }
  yield first.filter((entry) => newestFirst(entry, end as OperationEntry) <= 0).reverse();
}

import { verifyStore } from "../evidence/index.js";
import type { Operation } from "../operations/index.js";
import { continuationView } from "../runtime/index.js";
import type { ControlPlaneStore, HistoryQuery } from "../store/index.js";
import type { TimelineChain, TimelineInput, TimelineScheduler } from "./model/index.js";

/** From this many actions on, the timeline lists operations in one read rather than one read each. */
export const LISTED_FROM = 64;

/**
 * The operations of `ids`, in their order. Many (a long run) come from one listing of the shown
 * participant's operations, or of all, which the history shown covers: not a round trip each. An
 * episode's are read one by one, as a listing would hold every other episode's too.
 */
async function operationsOf(
  store: ControlPlaneStore,
  ids: ReadonlySet<string>,
  query: HistoryQuery,
  listedFrom: number,
): Promise<Operation[]> {
  let found: (Operation | undefined)[];
  if (ids.size < listedFrom || query.episodeId !== undefined) {
    found = await Promise.all([...ids].map((id) => store.getOperation(id)));
  } else {
    const listed = await store.listOperations({
      ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
      limit: Number.MAX_SAFE_INTEGER,
    });
    const byId = new Map<string, Operation>();
    for (const { participantAddress: _, createdAt: __, ...operation } of listed)
      byId.set(operation.id, operation);
    found = [...ids].map((id) => byId.get(id));
  }
  return found.filter((operation): operation is Operation => operation !== undefined);
}

/**
 * Reads what the timeline shows: the events, the operation of every action in them, and the
 * schedulers; from `listedFrom` actions on, the operations in one listing.
 */
export async function readTimelineInput(
  store: ControlPlaneStore,
  query: HistoryQuery = {},
  listedFrom = LISTED_FROM,
): Promise<TimelineInput> {
  const events = await store.listEvents(query);
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.action_instance_id);
    if (event.invocation_tool_context) ids.add(event.invocation_tool_context.invocation_action_instance_id);
  }
  const operations = await operationsOf(store, ids, query, listedFrom);
  const inHistory = new Set(events.map((event) => event.participant_address));
  // A participant filter keeps its scheduler even before its first event; an episode filter shows only participants in it.
  const shown = (address: string) =>
    query.participantAddress !== undefined
      ? address === query.participantAddress
      : query.episodeId === undefined || inHistory.has(address);
  const schedulers: TimelineScheduler[] = (await store.listSchedulers())
    .filter((scheduler) => shown(scheduler.participantAddress))
    .map((scheduler) => ({
      participantAddress: scheduler.participantAddress,
      lifecycle: scheduler.lifecycle,
      ...(scheduler.stopReason === undefined ? {} : { stopReason: scheduler.stopReason }),
      ...(scheduler.activity === undefined ? {} : { continuation: continuationView(scheduler.activity) }),
    }));
  return { events, operations, schedulers, chain: await chainStatus(store) };
}

/** Every chain of the store recomputed, as `raes verify` does, for the header's badge. */
async function chainStatus(store: ControlPlaneStore): Promise<TimelineChain> {
  const report = await verifyStore(store);
  const f = report.failure;
  return {
    ok: report.ok,
    events: report.events,
    ...(f
      ? { failure: `${f.kind} event: participant ${f.participant_address}, sequence ${f.sequence}` }
      : {}),
  };
}

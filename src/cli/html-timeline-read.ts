import type { Operation } from "../operations/types.js";
import { continuationView } from "../runtime/index.js";
import type { ControlPlaneStore, HistoryQuery } from "../store/types.js";
import type { TimelineInput } from "./html-timeline.js";
import type { TimelineScheduler } from "./html-timeline-model.js";

/** Reads what the timeline shows: the events, the operation of every action in them, and the schedulers. */
export async function readTimelineInput(
  store: ControlPlaneStore,
  query: HistoryQuery = {},
): Promise<TimelineInput> {
  const events = await store.listEvents(query);
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.action_instance_id);
    if (event.invocation_tool_context) ids.add(event.invocation_tool_context.invocation_action_instance_id);
  }
  const found = await Promise.all([...ids].map((id) => store.getOperation(id)));
  const operations = found.filter((operation): operation is Operation => operation !== undefined);
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
  return { events, operations, schedulers };
}

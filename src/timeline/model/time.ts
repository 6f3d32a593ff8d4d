import { formatDuration, isoTime } from "../../printed/index.js";
import {
  settlementOf,
  type TimelineEvent,
  type TimelineInvocation,
  type TimelineToolAction,
} from "./timeline.js";

/** Milliseconds since the epoch of an event's timestamp (microseconds kept as a fraction), or undefined. */
export function eventTime(event: TimelineEvent | undefined): number | undefined {
  return event === undefined ? undefined : isoTime(event.timestamp);
}

/** The first and last time among events, when any has one. */
export function timeSpan(events: readonly TimelineEvent[]): { start: number; end: number } | undefined {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const event of events) {
    const at = eventTime(event);
    if (at === undefined) continue;
    if (at < start) start = at;
    if (at > end) end = at;
  }
  return start <= end ? { start, end } : undefined;
}

/** When a tool action was admitted, dispatched (never, for a withheld one) and settled. */
export interface ActionTimes {
  readonly admitted?: string;
  readonly dispatched?: string;
  readonly settled?: string;
}

/**
 * The action's times: its record's (docs/design.md §10) when the store has them, else its events', which are
 * stamped at admission, dispatch (settlement when never dispatched) and settlement (docs/design.md §7).
 */
export function actionTimes(action: TimelineToolAction): ActionTimes {
  const op = action.operation;
  const [admission, middle] = action.events;
  const settlement = action.events.length >= 3 ? action.events.at(-1) : undefined;
  // A record with times says whether it was dispatched; one without them (older store) leaves it to the events.
  const dispatched = op?.admittedAt
    ? op.dispatchedAt
    : settlementOf(action) === "withheld"
      ? undefined
      : middle?.timestamp;
  const admitted = op?.admittedAt ?? admission?.timestamp;
  const settled = op?.settledAt ?? settlement?.timestamp;
  // Only the times there are, in this order: a page asks this several times per tool action.
  const times: { admitted?: string; dispatched?: string; settled?: string } = {};
  if (admitted !== undefined) times.admitted = admitted;
  if (dispatched !== undefined) times.dispatched = dispatched;
  if (settled !== undefined) times.settled = settled;
  return times;
}

/** The invocation's start and end in ms: its record's times, else the span of all its events. */
export function invocationSpan(invocation: TimelineInvocation): { start: number; end: number } | undefined {
  const events = [...invocation.outerEvents, ...invocation.toolActions.flatMap((a) => a.events)];
  const span = timeSpan(events);
  const start = isoTime(invocation.operation?.startedAt) ?? span?.start;
  const end = isoTime(invocation.operation?.endedAt) ?? span?.end;
  if (start === undefined || end === undefined) return undefined;
  // A tool action's record time may fall outside the invocation's events; the axis holds all of them.
  let from = start;
  let to = end;
  for (const action of invocation.toolActions) {
    for (const iso of Object.values(actionTimes(action))) {
      const at = isoTime(iso);
      if (at === undefined) continue;
      from = Math.min(from, at);
      to = Math.max(to, at);
    }
  }
  return { start: from, end: to };
}

/** How a tool action's times read, relative to its invocation's start. */
export function timesLabel(times: ActionTimes, start: number): string {
  const parts: string[] = [];
  const admitted = isoTime(times.admitted);
  const dispatched = isoTime(times.dispatched);
  const settled = isoTime(times.settled);
  if (admitted !== undefined) parts.push(`admitted +${formatDuration(admitted - start)}`);
  if (dispatched !== undefined) parts.push(`dispatched +${formatDuration(dispatched - start)}`);
  if (settled !== undefined) parts.push(`settled +${formatDuration(settled - start)}`);
  if (admitted !== undefined && settled !== undefined)
    parts.push(`took ${formatDuration(settled - admitted)}`);
  return parts.join(" · ");
}

/** One end of the page's span: the time as recorded (microseconds kept) and in ms. */
export interface SpanEnd {
  readonly iso: string;
  readonly ms: number;
}

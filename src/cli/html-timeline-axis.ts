import { escapeHtml } from "./html-timeline-escape.js";
import { settlementOf, type TimelineInvocation, type TimelineToolAction } from "./html-timeline-model.js";
import { formatDuration, isoTime, timeSpan } from "./html-timeline-time.js";

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
  const times = {
    admitted: op?.admittedAt ?? admission?.timestamp,
    dispatched,
    settled: op?.settledAt ?? settlement?.timestamp,
  };
  return Object.fromEntries(Object.entries(times).filter(([, v]) => v !== undefined)) as ActionTimes;
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

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(3)}%`;
const offset = (ms: number) => `+${formatDuration(ms)}`;

/** How a tool action's times read, relative to its invocation's start. */
export function timesLabel(times: ActionTimes, start: number): string {
  const parts: string[] = [];
  const admitted = isoTime(times.admitted);
  const dispatched = isoTime(times.dispatched);
  const settled = isoTime(times.settled);
  if (admitted !== undefined) parts.push(`admitted ${offset(admitted - start)}`);
  if (dispatched !== undefined) parts.push(`dispatched ${offset(dispatched - start)}`);
  if (settled !== undefined) parts.push(`settled ${offset(settled - start)}`);
  if (admitted !== undefined && settled !== undefined)
    parts.push(`took ${formatDuration(settled - admitted)}`);
  return parts.join(" · ");
}

function lane(action: TimelineToolAction, start: number, whole: number): string {
  const times = actionTimes(action);
  const admitted = isoTime(times.admitted) ?? start;
  const settled = isoTime(times.settled) ?? admitted;
  const dispatched = isoTime(times.dispatched);
  const name = action.operation?.toolName ?? action.context.tool_call_id;
  const label = timesLabel(times, start);
  // The pale part of a bar is the wait between admission and dispatch; the solid part the call itself.
  const wait = dispatched === undefined ? settled - admitted : dispatched - admitted;
  const attributes = [
    ` data-lane-for="${escapeHtml(action.id)}" data-admit-ms="${admitted - start}"`,
    dispatched === undefined ? "" : ` data-dispatch-ms="${dispatched - start}"`,
    ` data-settle-ms="${settled - start}"`,
  ].join("");
  return [
    `<li class="lane"${attributes} title="${escapeHtml(label)}">`,
    `<span class="lane-name">#${escapeHtml(action.context.admission_ordinal)} ${escapeHtml(name)}</span>`,
    `<span class="lane-track"><span class="bar s-${escapeHtml(settlementOf(action))}" style="left:${pct(admitted - start, whole)};width:${pct(settled - admitted, whole)}">`,
    `<span class="wait" style="width:${settled > admitted ? pct(wait, settled - admitted) : "0%"}"></span></span></span>`,
    "</li>",
  ].join("");
}

/** The invocation's time axis: one lane per tool action, each bar from admission to settlement, to scale. */
export function timeAxis(invocation: TimelineInvocation): string {
  const span = invocationSpan(invocation);
  if (span === undefined || invocation.toolActions.length === 0) return "";
  const whole = Math.max(span.end - span.start, 0.001);
  const lanes = invocation.toolActions.map((action) => lane(action, span.start, whole)).join("");
  return [
    `<ol class="axis" aria-label="tool actions in time">${lanes}`,
    `<li class="ticks" aria-hidden="true"><span>0</span><span>${escapeHtml(formatDuration(span.end - span.start))}</span></li></ol>`,
  ].join("");
}

import { isoTime } from "../../printed/index.js";
import {
  actionTimes,
  invocationSpan,
  needsResolution,
  settlementOf,
  type TimelineInvocation,
  type TimelineToolAction,
} from "../model/index.js";
import type { EncodedMark, EncodedRow } from "../page/index.js";
import { activityMeta, activityOf } from "./activity.js";
import {
  type DetailSpec,
  invocationDetail,
  invocationStatus,
  refusalRows,
  refusedCallsOf,
  settlementClass,
  statusClass,
  toolActionDetail,
} from "./details.js";
import type { StringTable } from "./strings.js";

/**
 * A mark as the page stores it, its strings not yet interned and its panel numbered within its
 * participant: [id, settlement, settlement class, needs resolution, ordinal, tool call id, tool,
 * panel, admitted, dispatched, settled].
 */
export type RawMark = readonly [
  string,
  string,
  string,
  0 | 1 | 2,
  number,
  string,
  string | undefined,
  number,
  number | null,
  number | null,
  number | null,
];

/**
 * A row as the page stores it, its strings not yet interned and its panels numbered within its
 * participant: what the page keeps of an invocation once its panels are made and its events dropped.
 */
export type RawRow = readonly [
  string,
  string,
  string,
  string,
  string,
  string,
  number | null,
  number,
  readonly (readonly [string, number, string, string])[],
  readonly [string, string, string, string] | 0,
  readonly RawMark[],
];

/** A short clock time for an ISO timestamp, or the value itself when it is not one. */
function clockTime(timestamp: string | undefined): string {
  if (timestamp === undefined) return "";
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(timestamp) ? timestamp.slice(11, 19) : timestamp;
}

function rawMark(action: TimelineToolAction, start: number | undefined, panel: number): RawMark {
  const settlement = settlementOf(action);
  const times = actionTimes(action);
  const offset = (iso: string | undefined): number | null => {
    const at = isoTime(iso);
    return at === undefined || start === undefined ? null : at - start;
  };
  return [
    action.id,
    settlement,
    settlementClass(settlement),
    settlement !== "indeterminate" ? 0 : needsResolution(action) ? 1 : 2,
    action.context.admission_ordinal,
    action.context.tool_call_id,
    action.operation?.toolName || undefined,
    panel,
    offset(times.admitted),
    offset(times.dispatched),
    offset(times.settled),
  ];
}

/**
 * The row of the invocation shown at `position` in its participant, its panels handed to `addPanel`
 * (each tool action's, then the invocation's), which answers each panel's number in the participant.
 */
export function rawRow(
  invocation: TimelineInvocation,
  position: number,
  storeUrl: string,
  addPanel: (make: () => DetailSpec) => number,
): RawRow {
  const status = invocationStatus(invocation);
  const span = invocationSpan(invocation);
  const marks = invocation.toolActions.map((action) =>
    rawMark(
      action,
      span?.start,
      addPanel(() => toolActionDetail(action, position, storeUrl)),
    ),
  );
  const activity = activityOf(invocation);
  const first = invocation.outerEvents[0] ?? invocation.toolActions[0]?.events[0];
  return [
    invocation.id,
    invocation.episodeId,
    status.key,
    statusClass(status.key),
    status.label,
    clockTime(first?.timestamp),
    span === undefined ? null : span.end - span.start,
    addPanel(() => invocationDetail(invocation, position, span)),
    refusalRows(invocation).map(([code, count]) => {
      const calls = refusedCallsOf(invocation, String(code));
      const tools = [...new Set(calls.flatMap((c) => (c.tool === undefined ? [] : [c.tool])))];
      const when = calls.map((c) => clockTime(c.at)).join(", ");
      return [String(code), Number(count), tools.join(", "), when] as const;
    }),
    activity
      ? [
          activity.candidate_id,
          activity.timing_disposition,
          activity.predecessor_attempt_id ?? "",
          activityMeta(activity),
        ]
      : 0,
    marks,
  ];
}

/**
 * A row as data for the page script: its strings interned in `strings` (each mark's, then the
 * row's, the order the page has always used) and its panels numbered from `panelBase`.
 */
export function encodeRow(raw: RawRow, strings: StringTable, panelBase: number): EncodedRow {
  const intern = (value: string) => strings.intern(value);
  const marks = raw[10].map(
    (m): EncodedMark => [
      intern(m[0]),
      intern(m[1]),
      intern(m[2]),
      m[3],
      m[4],
      intern(m[5]),
      m[6] ? intern(m[6]) : -1,
      panelBase + m[7],
      m[8],
      m[9],
      m[10],
    ],
  );
  const activity = raw[9];
  return [
    intern(raw[0]),
    intern(raw[1]),
    intern(raw[2]),
    intern(raw[3]),
    intern(raw[4]),
    intern(raw[5]),
    raw[6],
    panelBase + raw[7],
    raw[8].map(([code, count, tools, when]) => [intern(code), count, intern(tools), intern(when)]),
    activity ? [intern(activity[0]), intern(activity[1]), intern(activity[2]), intern(activity[3])] : 0,
    marks,
  ];
}

import { isoTime } from "../../printed/index.js";
import {
  actionTimes,
  invocationSpan,
  needsResolution,
  settlementOf,
  type TimelineInvocation,
  type TimelineParticipant,
  type TimelineToolAction,
} from "../model/index.js";
import type { EncodedMark, EncodedRow } from "../page/index.js";
import { activityMeta, activityOf } from "./activity.js";
import {
  invocationDetail,
  invocationStatus,
  refusalRows,
  refusedCallsOf,
  settlementClass,
  statusClass,
  toolActionDetail,
} from "./details.js";
import type { DetailPanels } from "./panels.js";
import type { StringTable } from "./strings.js";

/** A short clock time for an ISO timestamp, or the value itself when it is not one. */
function clockTime(timestamp: string | undefined): string {
  if (timestamp === undefined) return "";
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(timestamp) ? timestamp.slice(11, 19) : timestamp;
}

function encodeMark(
  action: TimelineToolAction,
  position: number,
  start: number | undefined,
  strings: StringTable,
  details: DetailPanels,
): EncodedMark {
  const settlement = settlementOf(action);
  const times = actionTimes(action);
  const offset = (iso: string | undefined): number | null => {
    const at = isoTime(iso);
    return at === undefined || start === undefined ? null : at - start;
  };
  const tool = action.operation?.toolName;
  return [
    strings.intern(action.id),
    strings.intern(settlement),
    strings.intern(settlementClass(settlement)),
    settlement !== "indeterminate" ? 0 : needsResolution(action) ? 1 : 2,
    action.context.admission_ordinal,
    strings.intern(action.context.tool_call_id),
    tool ? strings.intern(tool) : -1,
    details.add(() => toolActionDetail(action, position, details.storeUrl)),
    offset(times.admitted),
    offset(times.dispatched),
    offset(times.settled),
  ];
}

function encodeRow(
  invocation: TimelineInvocation,
  position: number,
  strings: StringTable,
  details: DetailPanels,
): EncodedRow {
  const status = invocationStatus(invocation);
  const span = invocationSpan(invocation);
  const marks = invocation.toolActions.map((action) =>
    encodeMark(action, position, span?.start, strings, details),
  );
  const activity = activityOf(invocation);
  const first = invocation.outerEvents[0] ?? invocation.toolActions[0]?.events[0];
  return [
    strings.intern(invocation.id),
    strings.intern(invocation.episodeId),
    strings.intern(status.key),
    strings.intern(statusClass(status.key)),
    strings.intern(status.label),
    strings.intern(clockTime(first?.timestamp)),
    span === undefined ? null : span.end - span.start,
    details.add(() => invocationDetail(invocation, position)),
    refusalRows(invocation).map(([code, count]) => {
      const calls = refusedCallsOf(invocation, String(code));
      const tools = [...new Set(calls.flatMap((c) => (c.tool === undefined ? [] : [c.tool])))];
      const when = calls.map((c) => clockTime(c.at)).join(", ");
      return [strings.intern(code), Number(count), strings.intern(tools.join(", ")), strings.intern(when)];
    }),
    activity
      ? [
          strings.intern(activity.candidate_id),
          strings.intern(activity.timing_disposition),
          strings.intern(activity.predecessor_attempt_id ?? ""),
          strings.intern(activityMeta(activity)),
        ]
      : 0,
    marks,
  ];
}

/** A participant's invocation rows as data for the page script, their panels added to `details`. */
export function encodeRows(
  participant: TimelineParticipant,
  strings: StringTable,
  details: DetailPanels,
): EncodedRow[] {
  return participant.invocations.map((invocation, index) =>
    encodeRow(invocation, index + 1, strings, details),
  );
}

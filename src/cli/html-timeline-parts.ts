import { activityAttributes, activityMeta, activityOf, continuationText } from "./html-timeline-activity.js";
import {
  type DetailPanels,
  invocationDetail,
  invocationStatus,
  resolveCommandsHtml,
  settlementClass,
  statusClass,
  toolActionDetail,
} from "./html-timeline-details.js";
import { escapeHtml } from "./html-timeline-escape.js";
import {
  needsResolution,
  SETTLEMENTS,
  settlementOf,
  type TimelineInvocation,
  type TimelineParticipant,
  type TimelineScheduler,
  type TimelineToolAction,
} from "./html-timeline-model.js";
import { formatDuration, timeSpan } from "./html-timeline-time.js";

const GLYPHS: Readonly<Record<string, string>> = {
  succeeded: "✓",
  failed: "✕",
  partial_success: "◐",
  withheld: "–",
  indeterminate: "?",
  other: "•",
};

const STOP_REASONS: Readonly<Record<string, string>> = {
  tool_action_indeterminate: "a tool action settled indeterminate; resolve it, then resume the participant",
  failure_policy: "an invocation failed and the policy's failure_policy is stop",
  harness_error:
    "the harness threw or returned an invalid result; its attempt is consumed; fix the harness, then resume the participant",
  attempts_exhausted: "the policy's max_action_attempts is used up",
};

/** A short clock time for an ISO timestamp, or the value itself when it is not one. */
function clockTime(timestamp: string | undefined): string {
  if (timestamp === undefined) return "";
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(timestamp) ? timestamp.slice(11, 19) : timestamp;
}

function mark(action: TimelineToolAction, position: number, details: DetailPanels): string {
  const settlement = settlementOf(action);
  const kind = settlementClass(settlement);
  const resolution =
    settlement !== "indeterminate" ? "" : needsResolution(action) ? " needs-resolution" : " resolved";
  const ordinal = escapeHtml(action.context.admission_ordinal);
  const label = `tool action #${action.context.admission_ordinal} ${action.context.tool_call_id}: ${settlement}`;
  return [
    `<li class="mark-slot"><button type="button" id="${escapeHtml(action.id)}" class="mark s-${kind}${resolution}"`,
    ` data-tool-action="${escapeHtml(action.id)}" data-settlement="${escapeHtml(settlement)}"`,
    ` data-admission-ordinal="${ordinal}" data-detail="${details.add(toolActionDetail(action, position, details.storeUrl))}"`,
    ` aria-pressed="false" aria-label="${escapeHtml(label)}" title="${escapeHtml(label)}">`,
    `<span aria-hidden="true">${GLYPHS[kind] ?? "•"}</span></button>`,
    `<span class="ordinal" aria-hidden="true">${ordinal}</span></li>`,
  ].join("");
}

function invocationRow(invocation: TimelineInvocation, position: number, details: DetailPanels): string {
  const status = invocationStatus(invocation);
  const time = clockTime((invocation.outerEvents[0] ?? invocation.toolActions[0]?.events[0])?.timestamp);
  const span = timeSpan([
    ...invocation.outerEvents,
    ...invocation.toolActions.flatMap((action) => action.events),
  ]);
  const duration = span === undefined ? "" : ` · ${formatDuration(span.end - span.start)}`;
  const durationAttribute = span === undefined ? "" : ` data-duration-ms="${span.end - span.start}"`;
  const count = invocation.toolActions.length;
  const activity = activityOf(invocation);
  const marks =
    count > 0
      ? `<ol class="marks">${invocation.toolActions.map((action) => mark(action, position, details)).join("")}</ol>`
      : `<span class="muted">no tool actions</span>`;
  return [
    `<li class="invocation" id="${escapeHtml(invocation.id)}" data-invocation="${escapeHtml(invocation.id)}" data-invocation-status="${escapeHtml(status.key)}"${durationAttribute}${activity ? activityAttributes(activity) : ""}>`,
    `<button type="button" class="invocation-label" data-detail="${details.add(invocationDetail(invocation, position))}"`,
    ` aria-pressed="false" title="${escapeHtml(invocation.id)}">`,
    `<span class="invocation-name">Invocation ${position}</span>`,
    `<span class="invocation-meta">${escapeHtml(time)}${escapeHtml(duration)} · ${count} tool action${count === 1 ? "" : "s"}</span>`,
    activity ? `<span class="invocation-meta activity">${escapeHtml(activityMeta(activity))}</span>` : "",
    "</button>",
    `<div class="track">${marks}</div>`,
    `<span class="status st-${escapeHtml(statusClass(status.key))}">${escapeHtml(status.label)}</span>`,
    "</li>",
  ].join("");
}

function schedulerBadge(scheduler: TimelineScheduler): string {
  const stopped = scheduler.lifecycle === "stopped";
  const reason = scheduler.stopReason;
  const text = stopped
    ? `scheduler stopped${reason ? `: ${reason}` : ""}`
    : `scheduler ${scheduler.lifecycle}`;
  const why =
    stopped && reason
      ? `<span class="scheduler-why">${escapeHtml(STOP_REASONS[reason] ?? reason)}</span>`
      : "";
  const continuation = scheduler.continuation
    ? `<span class="scheduler-why" data-continuation="${escapeHtml(JSON.stringify(scheduler.continuation))}">${escapeHtml(continuationText(scheduler.continuation))}</span>`
    : "";
  return `<div class="scheduler ${stopped ? "stopped" : "running"}" data-scheduler="${escapeHtml(scheduler.lifecycle)}"${reason ? ` data-stop-reason="${escapeHtml(reason)}"` : ""}><span class="scheduler-state">${escapeHtml(text)}</span>${why}${continuation}</div>`;
}

function indeterminateActions(participant: TimelineParticipant): TimelineToolAction[] {
  return participant.invocations.flatMap((invocation) =>
    invocation.toolActions.filter((action) => settlementOf(action) === "indeterminate"),
  );
}

function resolutionSummary(participant: TimelineParticipant, storeUrl: string): string {
  const actions = indeterminateActions(participant);
  if (actions.length === 0) return "";
  const open = actions.filter(needsResolution);
  const resolved = actions.filter((action) => !needsResolution(action));
  const openList = open
    .map(
      (action) =>
        `<li data-unresolved="${escapeHtml(action.id)}"><code>${escapeHtml(action.id)}</code>${resolveCommandsHtml(action.id, storeUrl)}</li>`,
    )
    .join("");
  const resolvedList = resolved
    .map((action) => {
      const how = action.operation?.resolution?.resolution ?? "";
      return `<li data-resolved="${escapeHtml(action.id)}"><code>${escapeHtml(action.id)}</code> <span class="pill s-resolved">${escapeHtml(how)}</span></li>`;
    })
    .join("");
  return [
    open.length > 0
      ? `<div class="attention"><h3>${open.length} indeterminate tool action${open.length === 1 ? "" : "s"} need${open.length === 1 ? "s" : ""} an operator decision</h3><p>Check whether the effect happened, then record it; nothing is retried.</p><ul class="commands">${openList}</ul></div>`
      : "",
    resolved.length > 0
      ? `<div class="resolutions"><h3>Resolved indeterminate tool actions</h3><ul>${resolvedList}</ul></div>`
      : "",
  ].join("");
}

function episodes(invocations: readonly TimelineInvocation[]): Map<string, TimelineInvocation[]> {
  const byEpisode = new Map<string, TimelineInvocation[]>();
  for (const invocation of invocations) {
    const list = byEpisode.get(invocation.episodeId) ?? [];
    list.push(invocation);
    byEpisode.set(invocation.episodeId, list);
  }
  return byEpisode;
}

/** One participant's section: scheduler state, pending resolutions and the timeline by episode. */
export function participantSection(participant: TimelineParticipant, details: DetailPanels): string {
  const toolActions = participant.invocations.reduce(
    (sum, invocation) => sum + invocation.toolActions.length,
    0,
  );
  const schedulers =
    participant.schedulers.length > 0
      ? participant.schedulers.map(schedulerBadge).join("")
      : `<div class="scheduler unknown" data-scheduler="unknown"><span class="scheduler-state">scheduler not recorded</span></div>`;
  let position = 0;
  const timeline = [...episodes(participant.invocations)].map(([episodeId, invocations]) => {
    const rows = invocations.map((invocation) => {
      position += 1;
      return invocationRow(invocation, position, details);
    });
    return `<div class="episode"><h3 class="episode-title">Episode <code>${escapeHtml(episodeId)}</code></h3><ol class="invocations">${rows.join("")}</ol></div>`;
  });
  const empty = participant.invocations.length === 0 ? `<p class="muted">No history events yet.</p>` : "";
  return [
    `<section class="participant" data-participant="${escapeHtml(participant.address)}">`,
    `<header class="participant-head"><div><h2><code>${escapeHtml(participant.address)}</code></h2>`,
    `<p class="muted">${participant.invocations.length} invocation${participant.invocations.length === 1 ? "" : "s"} · ${toolActions} tool action${toolActions === 1 ? "" : "s"}</p></div>`,
    `<div class="schedulers">${schedulers}</div></header>`,
    resolutionSummary(participant, details.storeUrl),
    timeline.join(""),
    empty,
    "</section>",
  ].join("");
}

/** The colour legend with per-settlement counts. */
export function legend(
  counts: ReadonlyMap<string, number>,
  indeterminate: { open: number; resolved: number },
): string {
  const known = new Set<string>(SETTLEMENTS);
  const entries = [...counts].map(([settlement, count]) => {
    const kind = known.has(settlement) ? settlement : "other";
    return `<li data-legend-settlement="${escapeHtml(settlement)}" data-count="${count}"><span class="swatch s-${kind}" aria-hidden="true">${GLYPHS[kind]}</span>${escapeHtml(settlement)} <span class="count">${count}</span></li>`;
  });
  const notes = [
    // Counted too, so the legend agrees with the ringed and pale marks the page draws.
    `<li class="legend-note" data-legend-note="needs-resolution" data-count="${indeterminate.open}"><span class="swatch s-indeterminate ring" aria-hidden="true">?</span>ringed: needs <code>raes resolve</code> <span class="count">${indeterminate.open}</span></li>`,
    `<li class="legend-note" data-legend-note="resolved" data-count="${indeterminate.resolved}"><span class="swatch pale" aria-hidden="true">?</span>pale: resolved <span class="count">${indeterminate.resolved}</span></li>`,
  ];
  return `<ul class="legend" aria-label="tool action settlements">${entries.join("")}${notes.join("")}</ul>`;
}

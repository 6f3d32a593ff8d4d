import { approvalCommands, budgetEventsCommand } from "../../printed/index.js";
import { resourceEventNote } from "../../store/index.js";
import {
  type PacingDeviation,
  type ParticipantDecision,
  type PendingApproval,
  SETTLEMENTS,
  type TimelineScheduler,
  type TimelineService,
} from "../model/index.js";
import { GLYPHS } from "../page/index.js";
import { continuationText } from "./activity.js";
import { resolveCommandsHtml, statusClass } from "./details.js";
import { escapeHtml } from "./escape.js";
import type { ParticipantSummary } from "./summary.js";

/** What each stop reason reads as on the badge (the code itself stays in `data-stop-reason`). */
const STOP_LABELS: Readonly<Record<string, string>> = {
  tool_action_indeterminate: "a tool action is indeterminate",
  failure_policy: "an invocation failed",
  harness_error: "the harness failed",
  attempts_exhausted: "attempts used up",
};

const STOP_REASONS: Readonly<Record<string, string>> = {
  tool_action_indeterminate: "a tool action settled indeterminate; resolve it, then resume the participant",
  failure_policy: "an invocation failed and the policy's failure_policy is stop",
  harness_error:
    "the harness threw or returned an invalid result; its attempt is consumed; fix the harness, then resume the participant",
  attempts_exhausted: "the policy's max_action_attempts is used up",
};

function schedulerBadge(scheduler: TimelineScheduler): string {
  const stopped = scheduler.lifecycle === "stopped";
  const reason = scheduler.stopReason;
  const text = stopped
    ? `scheduler stopped${reason ? `: ${STOP_LABELS[reason] ?? reason}` : ""}`
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

function resolutionSummary(participant: ParticipantSummary, storeUrl: string): string {
  const { open, resolved } = participant;
  if (open.length === 0 && resolved.length === 0) return "";
  const openList = open
    .map(
      (id) =>
        `<li data-unresolved="${escapeHtml(id)}"><code>${escapeHtml(id)}</code>${resolveCommandsHtml(id, storeUrl)}</li>`,
    )
    .join("");
  const resolvedList = resolved
    .map(
      ([id, how]) =>
        `<li data-resolved="${escapeHtml(id)}"><code>${escapeHtml(id)}</code> <span class="pill s-resolved">${escapeHtml(how)}</span></li>`,
    )
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

/**
 * The calls of a participant held for approval, each with the commands that decide it. A lapsed one
 * (its approve would be refused) gets its deny command only, and why, as `--needs-operator` prints it.
 */
function approvalSummary(pending: readonly PendingApproval[], storeUrl: string): string {
  if (pending.length === 0) return "";
  const items = pending
    .map((held) => {
      const c = approvalCommands(held.id, storeUrl);
      const tool = held.toolName ? ` <span class="muted">${escapeHtml(held.toolName)}</span>` : "";
      const approve =
        held.lapsed === undefined
          ? `<span class="command-choice">to run it once:</span><code class="command" data-decision="approve">${escapeHtml(c.approve)}</code>`
          : "";
      const why =
        held.lapsed === undefined
          ? ""
          : `<span class="command-choice" data-no-approve="${escapeHtml(held.lapsed.code)}">(no approve: ${escapeHtml(held.lapsed.message)})</span>`;
      return `<li data-pending-approval="${escapeHtml(held.id)}"><code>${escapeHtml(held.id)}</code>${tool} <span class="muted">held since ${escapeHtml(held.requestedAt)}, expires after ${held.timeoutSeconds} s</span>${approve}<span class="command-choice">to withhold it:</span><code class="command" data-decision="deny">${escapeHtml(c.deny)}</code>${why}</li>`;
    })
    .join("");
  const n = pending.length;
  return `<div class="attention" data-pending-approvals="${n}"><h3>${n} tool call${n === 1 ? "" : "s"} wait${n === 1 ? "s" : ""} for approval</h3><p>Held undispatched: the tool runs only once approved.</p><ul class="commands">${items}</ul></div>`;
}

/**
 * One participant's section: scheduler state, calls held for approval (`pending`), pending
 * resolutions, v3 budget use and an empty list for its
 * invocations, which the page script draws from the rows block one page at a time, filtered, with
 * episode titles.
 */
export function participantSection(
  participant: ParticipantSummary,
  storeUrl: string,
  pending: readonly PendingApproval[] = [],
  decisions: readonly ParticipantDecision[] = [],
  pacing: readonly PacingDeviation[] = [],
  service?: TimelineService,
): string {
  const toolActions = participant.toolActions;
  const invocations = participant.rows.length;
  const schedulers =
    participant.schedulers.length > 0
      ? participant.schedulers.map(schedulerBadge).join("")
      : `<div class="scheduler unknown" data-scheduler="unknown"><span class="scheduler-state">scheduler not recorded</span></div>`;
  const empty = invocations === 0 ? `<p class="muted">No history events yet.</p>` : "";
  const pager =
    invocations === 0
      ? ""
      : `<nav class="pager" aria-label="pages"><button type="button" data-pager="prev">‹ previous</button><span class="page-status" aria-live="polite"></span><button type="button" data-pager="next">next ›</button></nav>`;
  return [
    `<section class="participant" data-participant="${escapeHtml(participant.address)}">`,
    `<header class="participant-head"><div><h2><code>${escapeHtml(participant.address)}</code></h2>`,
    `<p class="muted">${invocations} invocation${invocations === 1 ? "" : "s"} · ${toolActions} tool action${toolActions === 1 ? "" : "s"}</p></div>`,
    `<div class="schedulers">${schedulers}${serviceBadge(service)}</div></header>`,
    approvalSummary(pending, storeUrl),
    resolutionSummary(participant, storeUrl),
    budgetUse(participant, storeUrl),
    pacingList(pacing),
    decisionList(decisions),
    invocations === 0 ? "" : `<ol class="invocations"></ol>`,
    pager,
    empty,
    "</section>",
  ].join("");
}

/**
 * The participant's execution service as it reads back (docs/guide/operations.md, "Controlling one
 * participant"): its lifecycle, its health when not `healthy`, and its generation; styled as a running
 * scheduler while it accepts work, else as a stopped one.
 */
function serviceBadge(service: TimelineService | undefined): string {
  if (!service) return "";
  const health = service.health === "healthy" ? "" : `, ${service.health}`;
  const text = `service ${service.lifecycle}${health} · generation ${service.generation}`;
  return `<div class="scheduler ${service.acceptingNewWork ? "running" : "stopped"}" data-service="${escapeHtml(service.lifecycle)}" data-health="${escapeHtml(service.health)}" data-generation="${service.generation}"><span class="service-state">${escapeHtml(text)}</span></div>`;
}

/** A v3 participant's budget use per owner and window (docs/guide/harness.md#autonomous-execution-v3). */
function budgetUse(participant: ParticipantSummary, storeUrl: string): string {
  const rows = participant.schedulers.flatMap((s) => s.budgets ?? []);
  if (rows.length === 0) return "";
  const cell = (text: string) => `<td>${escapeHtml(text)}</td>`;
  const body = rows
    .map(
      (r) =>
        `<tr data-budget="${escapeHtml(r.budget_id)}">${cell(r.owner)}${cell(r.budget_id)}${cell(r.window ? `${r.window[0]}–${r.window[1]}` : "—")}${cell(`${r.used} / ${r.limit} ${r.unit}`)}${cell(String(r.reserved))}${cell(String(r.throttled))}</tr>`,
    )
    .join("");
  const events = participant.schedulers.find((s) => s.budgetEvents)?.budgetEvents;
  return `<details class="budgets"><summary>Resource budgets (v3): use per owner and window</summary><table><thead><tr><th>owner</th><th>budget</th><th>window</th><th>used / limit</th><th>reserved</th><th>throttled</th></tr></thead><tbody>${body}</tbody></table>${events ? budgetEventList(participant.address, events, storeUrl) : ""}</details>`;
}

/** A participant's most recent budget events, and how many more the store keeps with the command listing them. */
function budgetEventList(
  participantAddress: string,
  events: NonNullable<TimelineScheduler["budgetEvents"]>,
  storeUrl: string,
): string {
  const { counts, recent } = events;
  if (counts.logged === 0) return "";
  const cell = (text: string) => `<td>${escapeHtml(text)}</td>`;
  const vector = (v: Readonly<Record<string, number>>) =>
    Object.entries(v)
      .map(([k, n]) => `${k}=${n}`)
      .join(", ");
  const rows = recent
    .map(
      ({ sequence, entry }) =>
        `<tr data-budget-event="${sequence}">${cell(String(sequence))}${cell(entry.transition)}${cell(String(entry.tick))}${cell(entry.operationId)}${cell(
          [
            vector(entry.requested),
            ...(entry.measured ? [`measured ${vector(entry.measured)}`] : []),
            ...(entry.capacityKind ? [entry.capacityKind] : []),
          ].join("; "),
        )}</tr>`,
    )
    .join("");
  const note = resourceEventNote(
    counts,
    recent.length,
    budgetEventsCommand(storeUrl, { participant: participantAddress }),
  );
  const more = note
    ? `<p class="budget-events" data-more="${counts.logged - recent.length}">${escapeHtml(note)}</p>`
    : "";
  return `<p class="muted" data-budget-events="${counts.logged}">Budget events: ${counts.logged} recorded, every one kept; the most recent:</p><table class="budget-events"><thead><tr><th>sequence</th><th>event</th><th>tick</th><th>operation</th><th>detail</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
}

/**
 * The legend: tool actions per settlement, each entry's checkbox filtering the page by that
 * settlement, and invocations per status, the words of the rows' badges. Each list says what it
 * counts, so a count of tool actions is never read against a number of badges.
 */
export function legend(
  counts: ReadonlyMap<string, number>,
  indeterminate: { open: number; resolved: number },
  statuses: ReadonlyMap<string, number>,
): string {
  const known = new Set<string>(SETTLEMENTS);
  const entries = [...counts].map(([settlement, count]) => {
    const kind = known.has(settlement) ? settlement : "other";
    const name = escapeHtml(settlement);
    return `<li data-legend-settlement="${name}" data-count="${count}"><label><input type="checkbox" checked data-filter-settlement="${name}"><span class="swatch s-${kind}" aria-hidden="true">${GLYPHS[kind]}</span>${name} <span class="count">${count}</span></label></li>`;
  });
  const notes = [
    // Counted too, so the legend agrees with the ringed and pale marks the page draws.
    `<li class="legend-note" data-legend-note="needs-resolution" data-count="${indeterminate.open}"><span class="swatch s-indeterminate ring" aria-hidden="true">?</span>ringed: needs <code>raes resolve</code> <span class="count">${indeterminate.open}</span></li>`,
    `<li class="legend-note" data-legend-note="resolved" data-count="${indeterminate.resolved}"><span class="swatch pale" aria-hidden="true">?</span>pale: resolved <span class="count">${indeterminate.resolved}</span></li>`,
  ];
  const statusEntries = [...statuses].map(
    ([status, count]) =>
      `<li data-legend-status="${escapeHtml(status)}" data-count="${count}"><span class="status st-${escapeHtml(statusClass(status))}">${escapeHtml(status)}</span> <span class="count">${count}</span></li>`,
  );
  return [
    `<ul class="legend" aria-label="tool actions by settlement (uncheck to hide)"><li class="legend-caption">Tool actions</li>${entries.join("")}${notes.join("")}</ul>`,
    `<ul class="legend legend-invocations" aria-label="invocations by status"><li class="legend-caption">Invocations</li>${statusEntries.join("")}</ul>`,
  ].join("");
}

/** One checkbox per participant: unchecking one hides its section and its counts. */
export function participantFilter(participants: readonly { readonly address: string }[]): string {
  if (participants.length < 2) return "";
  const boxes = participants.map(
    (p) =>
      `<label><input type="checkbox" checked data-filter-participant="${escapeHtml(p.address)}"><code>${escapeHtml(p.address)}</code></label>`,
  );
  return `<fieldset class="filters"><legend>Participants</legend>${boxes.join("")}</fieldset>`;
}

/** Refused calls of the whole page (the port's and the MCP gateway's own), per refusal code; refusals leave no history. */
export function refusalSummary(participants: readonly ParticipantSummary[]): string {
  const totals = new Map<string, number>();
  for (const participant of participants)
    for (const [code, count] of participant.refusals) totals.set(code, (totals.get(code) ?? 0) + count);
  if (totals.size === 0) return `<p class="refusal-summary muted" data-refusals="0">No call was refused.</p>`;
  const items = [...totals]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([code, count]) =>
        `<li data-refusal-code="${escapeHtml(code)}" data-count="${count}"><code>${escapeHtml(code)}</code> ×${count}</li>`,
    );
  return `<div class="refusal-summary"><span>Refused calls:</span><ul>${items.join("")}</ul></div>`;
}

/** A search over the rows' ids, episodes, statuses, call ids, tool names and settlements (the page script filters its data). */
export function searchBox(invocations: number): string {
  if (invocations === 0) return "";
  return `<p class="search"><label>Search <input type="search" data-search placeholder="id, tool, call id, episode, settlement" autocomplete="off" spellcheck="false"></label></p>`;
}

/** How many of a participant's operator decisions its section lists: the newest. */
export const DECISIONS_SHOWN = 20;

/** The operator decisions about a participant, newest first, each with who decided, when and why. */
function decisionList(decisions: readonly ParticipantDecision[]): string {
  if (decisions.length === 0) return "";
  const shown = decisions.slice(-DECISIONS_SHOWN).reverse();
  const items = shown
    .map((d) => {
      const note = d.note === "" ? "" : ` <span class="muted">“${escapeHtml(d.note)}”</span>`;
      const p = d.policyChange;
      const change =
        p === undefined
          ? ""
          : ` <span class="policy-change">policy <code>${escapeHtml(p.policyAddress)}</code> <code>${escapeHtml(p.previousDigest)}</code> → <code>${escapeHtml(p.digest)}</code>, new segment</span>`;
      return `<li data-decision="${escapeHtml(d.kind)}"><code>${escapeHtml(d.kind)}</code> by <strong>${escapeHtml(d.operator)}</strong> <span class="muted">at ${escapeHtml(d.decidedAt)}</span>${change}${note}</li>`;
    })
    .join("");
  const more =
    decisions.length > shown.length
      ? `<p class="muted">and ${decisions.length - shown.length} earlier</p>`
      : "";
  return `<div class="decisions" data-decisions="${decisions.length}"><h3>Operator decisions</h3><ul>${items}</ul>${more}</div>`;
}

/**
 * The service's pacing losses (docs/guide/operations.md#real-time): a step of a real-time run started
 * later than its drift bound, so the service is `degraded`; each with RAES's evidence ref and how late.
 */
function pacingList(deviations: readonly PacingDeviation[]): string {
  if (deviations.length === 0) return "";
  const items = deviations
    .map(
      (d) =>
        `<li data-pacing-ref="${escapeHtml(d.ref)}"><code>${escapeHtml(d.clockAddress)}</code>: a step started ${Math.round(d.latenessMs)} ms late (bound ${Math.round(d.boundMs)} ms) <span class="muted">at ${escapeHtml(d.recordedAt)}</span> <code class="muted">${escapeHtml(d.ref)}</code></li>`,
    )
    .join("");
  return `<div class="attention pacing" data-service-health="degraded" data-pacing-deviations="${deviations.length}"><h3>Service degraded: pacing lost</h3><ul>${items}</ul></div>`;
}

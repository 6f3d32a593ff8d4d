import type { HistoryEvent } from "../history/types.js";
import type { Operation } from "../operations/types.js";
import { activityOf, activityRows } from "./html-timeline-activity.js";
import { escapeHtml } from "./html-timeline-escape.js";
import {
  needsResolution,
  observationOf,
  SETTLEMENTS,
  settlementOf,
  type TimelineInvocation,
  type TimelineToolAction,
} from "./html-timeline-model.js";
import { formatDuration, timeSpan } from "./html-timeline-time.js";
import { resolveCommands } from "./shell.js";

/** Inert detail panels, each in a `<template>` the page script shows on click. */
export class DetailPanels {
  readonly #templates: string[] = [];
  /** The store the page was read from, named in every printed command. */
  readonly storeUrl: string;

  constructor(storeUrl: string) {
    this.storeUrl = storeUrl;
  }

  /** Stores one panel's HTML and returns the element id that shows it. */
  add(html: string): string {
    const id = `detail-${this.#templates.length + 1}`;
    this.#templates.push(`<template id="${id}">${html}</template>`);
    return id;
  }

  /** All stored templates. */
  html(): string {
    return this.#templates.join("\n");
  }
}

type Row = readonly [field: string, value: unknown];

/** The commands an operator runs to resolve an indeterminate tool action, one per decision, as HTML. */
export function resolveCommandsHtml(id: string, storeUrl: string): string {
  const commands = resolveCommands(id, storeUrl);
  return [
    `<span class="command-choice">if the effect happened:</span><code class="command" data-effect="confirmed">${escapeHtml(commands.confirmed)}</code>`,
    `<span class="command-choice">if it did not:</span><code class="command" data-effect="absent">${escapeHtml(commands.absent)}</code>`,
  ].join("");
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}

function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => escapeHtml(item)).join("<br>");
  return escapeHtml(value);
}

function fields(rows: readonly Row[]): string {
  const items = rows
    .filter(([, value]) => present(value))
    .map(
      ([field, value]) =>
        `<dt>${escapeHtml(field)}</dt><dd data-field="${escapeHtml(field)}"><code>${formatValue(value)}</code></dd>`,
    );
  return `<dl class="fields">${items.join("")}</dl>`;
}

function section(title: string, body: string): string {
  return `<section class="detail-section"><h4>${escapeHtml(title)}</h4>${body}</section>`;
}

function eventRows(events: readonly HistoryEvent[]): Row[] {
  return events.map((event) => [
    `#${event.sequence}`,
    `${event.event_type} · ${event.lifecycle_phase} · ${event.timestamp}`,
  ]);
}

/** When the action was admitted and settled (its first and last event), and how long that took. */
function timeRows(events: readonly HistoryEvent[]): Row[] {
  const span = timeSpan(events);
  return [
    ["admitted", events[0]?.timestamp],
    ["settled", events.at(-1)?.timestamp],
    ["duration", span === undefined ? undefined : formatDuration(span.end - span.start)],
  ];
}

function outcomeRows(events: readonly HistoryEvent[]): Row[] {
  const observed = observationOf(events);
  const result = observed?.action_result;
  return [
    ["observation_status", observed?.observation_status],
    ["action_result.status", result?.status],
    ["action_result.failure_class", result?.failure_class],
    ["action_result.evidence_refs", result?.evidence_refs],
  ];
}

/** The action's addresses, each from whichever event of its triple carries it (as in RAES). */
function addressRows(events: readonly HistoryEvent[]): Row[] {
  const first = <K extends keyof HistoryEvent>(key: K) => events.find((e) => e[key] !== undefined)?.[key];
  return [
    ["action_contract_address", first("action_contract_address")],
    ["observation_boundary_address", first("observation_boundary_address")],
    ["episode_id", first("episode_id")],
    ["observation_point", first("temporal_contexts")?.[0]?.observation_point],
    ["actor_provenance", first("actor_provenance")],
    ["post_state_digest", first("post_state_digest")],
  ];
}

function operationSection(operation: Operation | undefined): string {
  if (!operation) return section("Operation", `<p class="muted">No operation with this id in the store.</p>`);
  const resolution = operation.resolution;
  return section(
    "Operation",
    fields([
      ["state", operation.state],
      ["settlement", operation.settlement],
      ["resolution", resolution?.resolution],
      ["resolution.note", resolution?.note || undefined],
      ["resolution.resolved_at", resolution?.resolvedAt],
      ["started_at", operation.startedAt],
      ["ended_at", operation.endedAt],
      ["admitted_at", operation.admittedAt],
      ["dispatched_at", operation.dispatchedAt],
      ["settled_at", operation.settledAt],
      ["updated_at", operation.updatedAt],
    ]),
  );
}

/** The resolution notice of an indeterminate action, empty for any other settlement. */
export function resolutionNotice(action: TimelineToolAction, storeUrl: string): string {
  if (settlementOf(action) !== "indeterminate") return "";
  const resolution = action.operation?.resolution;
  if (resolution) {
    const note = resolution.note ? ` — “${escapeHtml(resolution.note)}”` : "";
    return `<p class="notice resolved" data-resolution="${escapeHtml(resolution.resolution)}">Resolved as <strong>${escapeHtml(resolution.resolution)}</strong> at ${escapeHtml(resolution.resolvedAt)}${note}. The effect was never repeated.</p>`;
  }
  return `<div class="notice unresolved" data-resolution="none"><p>Effects unknown: an operator must decide. The effect is never repeated.</p>${resolveCommandsHtml(action.id, storeUrl)}</div>`;
}

function pill(settlement: string): string {
  return `<span class="pill s-${escapeHtml(settlementClass(settlement))}">${escapeHtml(settlement)}</span>`;
}

/** The CSS class suffix of a settlement; unknown values share one neutral colour. */
export function settlementClass(settlement: string): string {
  return (SETTLEMENTS as readonly string[]).includes(settlement) ? settlement : "other";
}

/** The details panel of one tool action of the invocation shown at `position`. */
export function toolActionDetail(action: TimelineToolAction, position: number, storeUrl: string): string {
  const context = Object.entries(action.context) as Row[];
  const unresolved = needsResolution(action) ? " data-needs-resolution" : "";
  return [
    `<article class="detail" data-detail-tool-action="${escapeHtml(action.id)}"${unresolved}>`,
    `<header class="detail-head"><h3>Tool action #${escapeHtml(action.context.admission_ordinal)} of invocation ${position}</h3>${pill(settlementOf(action))}</header>`,
    `<p class="detail-id"><code>${escapeHtml(action.id)}</code></p>`,
    resolutionNotice(action, storeUrl),
    section("Time", fields(timeRows(action.events))),
    section("invocation_tool_context", fields(context)),
    section("Outcome", fields(outcomeRows(action.events))),
    operationSection(action.operation),
    section("Action", fields(addressRows(action.events))),
    section("Events", fields(eventRows(action.events))),
    "</article>",
  ].join("");
}

/** What an invocation's status reads as, and its machine-readable key. */
export function invocationStatus(invocation: TimelineInvocation): { key: string; label: string } {
  const observed = observationOf(invocation.outerEvents);
  if (!observed) return { key: "no_outer_triple", label: "failed: attempt consumed, no outer triple" };
  const status = observed.action_result?.status ?? "unknown";
  const failure = observed.action_result?.failure_class;
  return { key: status, label: failure ? `${status} (${failure})` : status };
}

/** The details panel of one outer invocation. */
export function invocationDetail(invocation: TimelineInvocation, position: number): string {
  const status = invocationStatus(invocation);
  const outer = invocation.outerEvents.length > 0;
  const activity = activityOf(invocation);
  const missing = outer
    ? ""
    : `<p class="notice failed">The harness raised or returned an invalid result: its tool history committed, the outer attempt was consumed and no outer triple was written.</p>`;
  const tools = invocation.toolActions.map(
    (action): Row => [
      `#${action.context.admission_ordinal}`,
      `${action.context.tool_call_id} · ${settlementOf(action)}`,
    ],
  );
  return [
    `<article class="detail" data-detail-invocation="${escapeHtml(invocation.id)}">`,
    `<header class="detail-head"><h3>Invocation ${position}</h3><span class="pill st-${escapeHtml(statusClass(status.key))}">${escapeHtml(status.label)}</span></header>`,
    `<p class="detail-id"><code>${escapeHtml(invocation.id)}</code></p>`,
    outer ? section("Outcome", fields(outcomeRows(invocation.outerEvents))) : missing,
    activity ? section("Activity (v2)", fields(activityRows(activity) as Row[])) : "",
    operationSection(invocation.operation),
    section(
      "Tool actions in admission order",
      tools.length > 0 ? fields(tools) : `<p class="muted">None.</p>`,
    ),
    section(
      "Invocation",
      fields(outer ? addressRows(invocation.outerEvents) : [["episode_id", invocation.episodeId]]),
    ),
    outer ? section("Events", fields(eventRows(invocation.outerEvents))) : "",
    "</article>",
  ].join("");
}

/** The CSS class suffix of an invocation status key. */
export function statusClass(key: string): string {
  if (key === "no_outer_triple") return "failed";
  return ["succeeded", "failed", "partial_success"].includes(key) ? key : "other";
}

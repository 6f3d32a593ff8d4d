import type { Operation } from "../../operations/index.js";
import { formatDuration, isoTime, resolveCommands } from "../../printed/index.js";
import {
  actionTimes,
  invocationSpan,
  needsResolution,
  observationOf,
  SETTLEMENTS,
  settlementOf,
  type TimelineEvent,
  type TimelineInvocation,
  type TimelineToolAction,
  timesLabel,
} from "../model/index.js";
import { activityOf, activityRows } from "./activity.js";
import { escapeHtml } from "./escape.js";

type Row = readonly [field: string, value: unknown];
/** One refused call an invocation's operation kept. */
type RefusedCall = NonNullable<Operation["refusedCalls"]>[number];

/** A field's value as the panel shows it: one line, or several. */
export type DetailValue = string | readonly string[];

/** One titled part of a panel: its fields, or a line saying there are none. */
export interface DetailSection {
  readonly title: string;
  readonly rows: readonly (readonly [field: string, value: DetailValue])[];
  readonly empty?: string;
}

/** A details panel as data: the page script draws it (as text) when its mark or invocation is selected. */
export interface DetailSpec {
  readonly kind: "tool-action" | "invocation";
  readonly id: string;
  readonly title: string;
  readonly pill: readonly [cssClass: string, text: string];
  /** Escaped HTML of the panel's notice (resolution commands, missing outer triple), or "". */
  readonly notice: string;
  readonly needsResolution: boolean;
  readonly sections: readonly DetailSection[];
}

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

function shown(value: unknown): DetailValue {
  return Array.isArray(value) ? value.map(String) : String(value);
}

function section(title: string, rows: readonly Row[], empty?: string): DetailSection {
  const kept = rows.filter(([, value]) => present(value)).map(([f, v]) => [f, shown(v)] as const);
  return empty === undefined ? { title, rows: kept } : { title, rows: kept, empty };
}

function eventRows(events: readonly TimelineEvent[]): Row[] {
  return events.map((event) => [
    `#${event.sequence}`,
    `${event.event_type} · ${event.lifecycle_phase} · ${event.timestamp}`,
  ]);
}

/** When the action was admitted, dispatched and settled, and how long that took. */
function timeRows(action: TimelineToolAction): Row[] {
  const times = actionTimes(action);
  const admitted = isoTime(times.admitted);
  const settled = isoTime(times.settled);
  return [
    ["admitted", times.admitted],
    ["dispatched", times.dispatched ?? (times.settled ? "never (settled without dispatch)" : undefined)],
    ["settled", times.settled],
    [
      "duration",
      admitted === undefined || settled === undefined ? undefined : formatDuration(settled - admitted),
    ],
  ];
}

function outcomeRows(events: readonly TimelineEvent[]): Row[] {
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
function addressRows(events: readonly TimelineEvent[]): Row[] {
  const first = <K extends keyof TimelineEvent>(key: K) => events.find((e) => e[key] !== undefined)?.[key];
  return [
    ["action_contract_address", first("action_contract_address")],
    ["observation_boundary_address", first("observation_boundary_address")],
    ["episode_id", first("episode_id")],
    ["observation_point", first("temporal_contexts")?.[0]?.observation_point],
    ["actor_provenance", first("actor_provenance")],
    ["post_state_digest", first("post_state_digest")],
  ];
}

function operationSection(operation: Operation | undefined): DetailSection {
  if (!operation) return section("Operation", [], "No operation with this id in the store.");
  const resolution = operation.resolution;
  return section("Operation", [
    ["state", operation.state],
    ["settlement", operation.settlement],
    ["tool_name", operation.toolName],
    ["unknown_reason", operation.unknownReason],
    ["resolution", resolution?.resolution],
    ["resolution.operator", resolution?.operator],
    ["resolution.note", resolution?.note || undefined],
    ["resolution.resolved_at", resolution?.resolvedAt],
    ["started_at", operation.startedAt],
    ["ended_at", operation.endedAt],
    ["admitted_at", operation.admittedAt],
    ["dispatched_at", operation.dispatchedAt],
    ["settled_at", operation.settledAt],
    // Recovery settled it (its process ended or lost it, or its close failed): when, as the record keeps it (settled_at stays unknown).
    ["recovered_at", operation.recoveredAt],
    ["updated_at", operation.updatedAt],
  ]);
}

/** A held call's approval (docs/guide/approvals.md): its state, times, and who decided. */
function approvalSection(operation: Operation | undefined): DetailSection | undefined {
  const approval = operation?.approval;
  if (!approval) return undefined;
  return section("Approval", [
    ["approval.state", approval.state],
    ["approval.requested_at", approval.requestedAt],
    ["approval.timeout_seconds", approval.timeoutSeconds],
    ["approval.decided_at", approval.decidedAt],
    ["approval.operator", approval.operator],
    ["approval.note", approval.note || undefined],
    ["approval.expired_by", approval.expiredBy],
    ["withheld_reason", operation?.withheldReason],
  ]);
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

/** The CSS class suffix of a settlement; unknown values share one neutral colour. */
export function settlementClass(settlement: string): string {
  return (SETTLEMENTS as readonly string[]).includes(settlement) ? settlement : "other";
}

/** The details panel of one tool action of the invocation shown at `position`. */
export function toolActionDetail(action: TimelineToolAction, position: number, storeUrl: string): DetailSpec {
  const settlement = settlementOf(action);
  return {
    kind: "tool-action",
    id: action.id,
    title: `Tool action #${action.context.admission_ordinal} of invocation ${position}`,
    pill: [`s-${settlementClass(settlement)}`, settlement],
    notice: resolutionNotice(action, storeUrl),
    needsResolution: needsResolution(action),
    sections: [
      section("Time", timeRows(action)),
      section("invocation_tool_context", Object.entries(action.context) as Row[]),
      section("Outcome", outcomeRows(action.events)),
      operationSection(action.operation),
      ...[approvalSection(action.operation)].filter((s): s is DetailSection => s !== undefined),
      section("Action", addressRows(action.events)),
      section("Events", eventRows(action.events)),
    ],
  };
}

/** What an invocation's status reads as, and its machine-readable key. */
export function invocationStatus(invocation: TimelineInvocation): { key: string; label: string } {
  const observed = observationOf(invocation.outerEvents);
  if (!observed) return { key: "no_outer_triple", label: "failed: attempt consumed, no outer triple" };
  const status = observed.action_result?.status ?? "unknown";
  const failure = observed.action_result?.failure_class;
  return { key: status, label: failure ? `${status} (${failure})` : status };
}

/** Port calls refused during the invocation, per refusal code (committed with its operation). */
export function refusalRows(invocation: TimelineInvocation): Row[] {
  return Object.entries(invocation.operation?.refusals ?? {});
}

/** The refused calls the invocation kept details of (the first ones), of one code or all. */
export function refusedCallsOf(invocation: TimelineInvocation, code?: string): RefusedCall[] {
  const calls = invocation.operation?.refusedCalls ?? [];
  return code === undefined ? [...calls] : calls.filter((c) => c.code === code);
}

/** The details panel of one outer invocation; `span` is its `invocationSpan`, when the caller has it. */
export function invocationDetail(
  invocation: TimelineInvocation,
  position: number,
  span = invocationSpan(invocation),
): DetailSpec {
  const status = invocationStatus(invocation);
  const outer = invocation.outerEvents.length > 0;
  const activity = activityOf(invocation);
  const missing = outer
    ? ""
    : `<p class="notice failed">The harness raised or returned an invalid result: its tool history committed, the outer attempt was consumed and no outer triple was written.</p>`;
  const tools = invocation.toolActions.map((action): Row => {
    const name = action.operation?.toolName ? ` · ${action.operation.toolName}` : "";
    const when = span ? ` · ${timesLabel(actionTimes(action), span.start)}` : "";
    return [
      `#${action.context.admission_ordinal}`,
      `${action.context.tool_call_id}${name} · ${settlementOf(action)}${when}`,
    ];
  });
  const sections: (DetailSection | undefined)[] = [
    section("Time", [
      ["started", span === undefined ? undefined : new Date(span.start).toISOString()],
      ["duration", span === undefined ? undefined : formatDuration(span.end - span.start)],
    ]),
    outer ? section("Outcome", outcomeRows(invocation.outerEvents)) : undefined,
    section("Refusals", refusalRows(invocation), "No call was refused."),
    refusedCallsOf(invocation).length === 0
      ? undefined
      : section(
          "Refused calls",
          refusedCallsOf(invocation).map(
            (c): Row => [
              c.at,
              [
                c.code,
                c.tool ?? "no tool named",
                c.call === "gateway" ? "refused by the MCP gateway" : `port ${c.call}`,
              ].join(" · "),
            ],
          ),
        ),
    activity ? section("Activity (v2)", activityRows(activity) as Row[]) : undefined,
    operationSection(invocation.operation),
    section("Tool actions in admission order", tools, "None."),
    section(
      "Invocation",
      outer ? addressRows(invocation.outerEvents) : [["episode_id", invocation.episodeId]],
    ),
    outer ? section("Events", eventRows(invocation.outerEvents)) : undefined,
  ];
  return {
    kind: "invocation",
    id: invocation.id,
    title: `Invocation ${position}`,
    pill: [`st-${statusClass(status.key)}`, status.label],
    notice: missing,
    needsResolution: false,
    sections: sections.filter((s): s is DetailSection => s !== undefined),
  };
}

/** The CSS class suffix of an invocation status key. */
export function statusClass(key: string): string {
  if (key === "no_outer_triple") return "failed";
  return ["succeeded", "failed", "partial_success"].includes(key) ? key : "other";
}

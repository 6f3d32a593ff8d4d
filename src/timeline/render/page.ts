import { formatDuration } from "../../printed/index.js";
import { DEFAULT_STORE_URL } from "../../store/index.js";
import {
  buildTimeline,
  countBySettlement,
  indeterminateCounts,
  type Timeline,
  type TimelineChain,
  type TimelineInput,
  timelineSpan,
} from "../model/index.js";
import { type EncodedRows, TIMELINE_CSP, TIMELINE_CSS, TIMELINE_SCRIPT } from "../page/index.js";
import { invocationStatus } from "./details.js";
import { escapeHtml } from "./escape.js";
import { DetailPanels } from "./panels.js";
import { legend, participantFilter, participantSection, refusalSummary, searchBox } from "./parts.js";
import { encodeRows } from "./rows.js";
import { dataBlockJson, StringTable } from "./strings.js";

export { TIMELINE_CSP };

const EMPTY_DETAILS = `<p class="muted">Select a tool action or an invocation to see its <code>invocation_tool_context</code>, outcome and operation.</p>`;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function summary(timeline: Timeline, invocations: number, toolActions: number): string {
  const { events, participants } = timeline;
  const whole = timelineSpan(timeline);
  const span = whole
    ? ` · <span data-start="${escapeHtml(whole.start.iso)}">${escapeHtml(whole.start.iso)}</span> → <span data-end="${escapeHtml(whole.end.iso)}">${escapeHtml(whole.end.iso)}</span>${escapeHtml(` (${formatDuration(whole.end.ms - whole.start.ms)})`)}`
    : "";
  return [
    `<p class="summary" data-summary data-participants="${participants.length}" data-invocations="${invocations}" data-tool-actions="${toolActions}" data-events="${events.length}">`,
    `${plural(participants.length, "participant")} · ${plural(invocations, "invocation")} · ${plural(toolActions, "tool action")} · ${plural(events.length, "event")}${span}`,
    "</p>",
  ].join("");
}

/** Invocations per status, in the order a status is first met (the words of the rows' badges). */
function statusCounts(timeline: Timeline): Map<string, number> {
  const counts = new Map<string, number>();
  for (const participant of timeline.participants)
    for (const invocation of participant.invocations) {
      const { key } = invocationStatus(invocation);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return counts;
}

/** The header's badge: whether every history chain of the store verifies (`raes verify`). */
export function chainBadge(chain: TimelineChain | undefined): string {
  if (chain === undefined) return "";
  if (chain.ok)
    return `<p class="chain verified" data-chain="verified">History chain verified: ${plural(chain.events, "event")} recomputed, every chain intact.</p>`;
  return `<p class="chain broken" data-chain="broken" role="alert">History chain broken: ${escapeHtml(chain.failure ?? "")}. Run raes verify for details.</p>`;
}

/**
 * The page of `input` (see renderTimelineHtml) in parts, in order: the head and sections, the rows
 * block, one part per details block, the script. A caller writes each part before asking for the
 * next, so the whole page is never one string in memory (docs/hardening.md).
 */
export function* timelineHtmlParts(input: TimelineInput): Generator<string> {
  const timeline = buildTimeline(input.events, input.operations, input.schedulers ?? []);
  const storeUrl = input.storeUrl ?? DEFAULT_STORE_URL;
  const strings = new StringTable();
  const details = new DetailPanels(storeUrl);
  const p = timeline.participants.map((participant) => encodeRows(participant, strings, details));
  const rows: EncodedRows = { s: strings.entries(), p };
  const pending = input.pendingApprovals ?? [];
  const sections = timeline.participants.map((participant) =>
    participantSection(
      participant,
      storeUrl,
      pending.filter((held) => held.participantAddress === participant.address),
    ),
  );
  const invocations = timeline.participants.reduce((sum, p) => sum + p.invocations.length, 0);
  const counts = countBySettlement(timeline);
  const toolActions = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const title = input.title ?? "RAES behavior history";
  const body =
    sections.length > 0
      ? sections.join("\n")
      : `<section class="participant"><p class="muted">No history events.</p></section>`;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${TIMELINE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${TIMELINE_CSS}</style>
</head>
<body>
<header class="page-head">
<h1>${escapeHtml(title)}</h1>
${summary(timeline, invocations, toolActions)}
${chainBadge(input.chain)}
${legend(counts, indeterminateCounts(timeline), statusCounts(timeline))}
${participantFilter(timeline.participants)}
${searchBox(invocations)}
${refusalSummary(timeline.participants)}
<p class="shown" data-shown aria-live="polite"></p>
</header>
<div class="layout">
<main>
${body}
</main>
<aside class="details" id="details" aria-live="polite">
<h2>Details</h2>
<div id="details-body">${EMPTY_DETAILS}</div>
</aside>
</div>
`;
  yield `<script type="application/json" id="timeline-rows">${dataBlockJson(rows)}</script>\n`;
  let k = 0;
  for (const block of details.blocks()) {
    yield `<script type="application/json" id="timeline-details-${k}">${block}</script>\n`;
    k += 1;
  }
  // With no block, an empty line stands where they would be.
  if (k === 0) yield "\n";
  yield `<script>${TIMELINE_SCRIPT}</script>
</body>
</html>
`;
}

/** Renders the behavior history as one self-contained HTML page that loads nothing from the network. */
export function renderTimelineHtml(input: TimelineInput): string {
  return [...timelineHtmlParts(input)].join("");
}

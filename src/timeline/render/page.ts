import { formatDuration, verifyCommand } from "../../printed/index.js";
import { DEFAULT_STORE_URL } from "../../store/index.js";
import { buildTimeline, type TimelineChain, type TimelineInput } from "../model/index.js";
import { type EncodedRows, TIMELINE_CSP, TIMELINE_CSS, TIMELINE_SCRIPT } from "../page/index.js";
import { escapeHtml } from "./escape.js";
import { MemoryPanels } from "./panel-store.js";
import { legend, participantFilter, participantSection, refusalSummary, searchBox } from "./parts.js";
import { encodeRow } from "./rows.js";
import { dataBlockJson, StringTable } from "./strings.js";
import { PageSummary, type ParticipantSummary, settlementCounts, statusCounts } from "./summary.js";

export { TIMELINE_CSP };

const EMPTY_DETAILS = `<p class="muted">Select a tool action or an invocation to see its <code>invocation_tool_context</code>, outcome and operation.</p>`;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function summary(
  page: PageSummary,
  shown: readonly ParticipantSummary[],
  invocations: number,
  toolActions: number,
): string {
  const whole = page.span(shown);
  const events = page.events;
  const span = whole
    ? ` · <span data-start="${escapeHtml(whole.start.iso)}">${escapeHtml(whole.start.iso)}</span> → <span data-end="${escapeHtml(whole.end.iso)}">${escapeHtml(whole.end.iso)}</span>${escapeHtml(` (${formatDuration(whole.end.ms - whole.start.ms)})`)}`
    : "";
  return [
    `<p class="summary" data-summary data-participants="${shown.length}" data-invocations="${invocations}" data-tool-actions="${toolActions}" data-events="${events}">`,
    `${plural(shown.length, "participant")} · ${plural(invocations, "invocation")} · ${plural(toolActions, "tool action")} · ${plural(events, "event")}${span}`,
    "</p>",
  ].join("");
}

/**
 * The header's badge: whether the store verifies as `raes verify --store` checks it (history chains,
 * operator chain, resolutions), and when not, what fails first in its words and the `raes verify`
 * command for the page's store, runnable as printed.
 */
export function chainBadge(chain: TimelineChain | undefined, storeUrl: string): string {
  if (chain === undefined) return "";
  if (chain.ok) {
    const decisions =
      chain.decisions === undefined
        ? ""
        : `; ${plural(chain.decisions, "operator decision")}, operator chain intact`;
    return `<p class="chain verified" data-chain="verified">History chain verified: ${plural(chain.events, "event")} recomputed, every chain intact${decisions}.</p>`;
  }
  return `<p class="chain broken" data-chain="broken" role="alert">Evidence does not verify: ${escapeHtml(chain.failure ?? "the store does not verify")}. Run <code class="command">${escapeHtml(verifyCommand(storeUrl))}</code> for details.</p>`;
}

/** What the page says besides what its store holds. */
export interface PageOptions {
  readonly title?: string;
  readonly chain?: TimelineChain | undefined;
}

/**
 * The page of `page` in parts, in order: the head and sections, the rows block, one part per details
 * block, the script. A caller writes each part before asking for the next, so the whole page is
 * never one string in memory (docs/hardening.md). The page's panel store is closed at the end.
 */
export function* summaryHtmlParts(page: PageSummary, options: PageOptions = {}): Generator<string> {
  try {
    const shown = page.participants();
    const storeUrl = page.storeUrl;
    const strings = new StringTable();
    let panelBase = 0;
    const p = shown.map((participant) => {
      const base = panelBase;
      panelBase += participant.panels;
      return participant.rows.map((row) => encodeRow(row, strings, base));
    });
    const rows: EncodedRows = { s: strings.entries(), p };
    const sections = shown.map((participant) =>
      participantSection(
        participant,
        storeUrl,
        page.pendingApprovals(participant.address),
        page.decisions(participant.address),
        page.pacingDeviations(participant.address),
        page.service(participant.address),
      ),
    );
    const invocations = shown.reduce((sum, participant) => sum + participant.rows.length, 0);
    const counts = settlementCounts(shown);
    const toolActions = [...counts.values()].reduce((sum, count) => sum + count, 0);
    const indeterminate = {
      open: shown.reduce((sum, participant) => sum + participant.open.length, 0),
      resolved: shown.reduce((sum, participant) => sum + participant.resolved.length, 0),
    };
    const title = options.title ?? "RAES behavior history";
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
${summary(page, shown, invocations, toolActions)}
${chainBadge(options.chain, storeUrl)}
${legend(counts, indeterminate, statusCounts(shown))}
${participantFilter(shown)}
${searchBox(invocations)}
${refusalSummary(shown)}
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
    for (const block of page.panels.blocks(shown.map((participant) => participant.index))) {
      yield `<script type="application/json" id="timeline-details-${k}">${block}</script>\n`;
      k += 1;
    }
    // With no block, an empty line stands where they would be.
    if (k === 0) yield "\n";
    yield `<script>${TIMELINE_SCRIPT}</script>
</body>
</html>
`;
  } finally {
    page.panels.close();
  }
}

/** The page summary of a timeline input held whole in memory: its events grouped at once, in any order. */
export function summarizeInput(input: TimelineInput): PageSummary {
  const timeline = buildTimeline(input.events, input.operations, input.schedulers ?? []);
  const page = new PageSummary(input.storeUrl ?? DEFAULT_STORE_URL, new MemoryPanels());
  for (const event of timeline.events) page.addEvent(event);
  for (const participant of timeline.participants)
    for (const invocation of participant.invocations) page.addInvocation(participant.address, invocation);
  for (const scheduler of input.schedulers ?? []) page.addScheduler(scheduler);
  for (const held of input.pendingApprovals ?? []) page.addPendingApproval(held);
  for (const decision of input.participantDecisions ?? []) page.addDecision(decision);
  for (const deviation of input.pacingDeviations ?? []) page.addPacingDeviation(deviation);
  for (const service of input.services ?? []) page.addService(service);
  return page;
}

/** The page of `input` (see renderTimelineHtml) in parts, in order (see summaryHtmlParts). */
export function* timelineHtmlParts(input: TimelineInput): Generator<string> {
  yield* summaryHtmlParts(summarizeInput(input), {
    ...(input.title === undefined ? {} : { title: input.title }),
    ...(input.chain === undefined ? {} : { chain: input.chain }),
  });
}

/** Renders the behavior history as one self-contained HTML page that loads nothing from the network. */
export function renderTimelineHtml(input: TimelineInput): string {
  return [...timelineHtmlParts(input)].join("");
}

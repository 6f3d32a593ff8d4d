import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { printedCommand } from "../../../src/printed/index.js";
import { MemoryControlPlaneStore, type ToolActionRecord } from "../../../src/store/index.js";
import {
  readTimelineInput,
  renderTimelineHtml,
  TIMELINE_CSP,
  type TimelineInput,
} from "../../../src/timeline/index.js";
import { browserSkipReason, launchChromium } from "../../fixtures/history/chromium.js";
import {
  committedDrafts,
  craftedInvocation,
  craftedToolAction,
  HOSTILE_PARTICIPANT,
  HOSTILE_TOOL_CALL_ID,
  hostileHistory,
  sequenced,
  toolOperation,
} from "../../fixtures/history/crafted.js";
import {
  attributeValues,
  decodeHtml,
  detailTemplate,
  visibleMarkup,
  withRows,
} from "../../fixtures/history/html.js";
import { largeHistory } from "../../fixtures/history/large.js";
import { KNOWN_COUNTS, type KnownRun, runKnownHistory } from "../../fixtures/history/scripted-run.js";

let run: KnownRun;
let input: TimelineInput;
/** The page as written, and with every row drawn as its script draws them (`withRows`). */
let written: string;
let html: string;
let storeActions: ToolActionRecord[];

before(async () => {
  const store = new MemoryControlPlaneStore();
  run = await runKnownHistory(store);
  input = await readTimelineInput(store);
  storeActions = await store.listToolActions({ phase: "settled" });
  written = renderTimelineHtml(input);
  html = withRows(written);
  await store.close();
});

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe("renderTimelineHtml on a history the real runtime wrote", () => {
  it("draws one mark per tool action, with the settlement history recorded", () => {
    const marks = attributeValues(html, "data-tool-action");
    assert.equal(marks.length, storeActions.length);
    assert.equal(marks.length, KNOWN_COUNTS.toolActions);
    assert.deepEqual(countBy(attributeValues(html, "data-settlement")), KNOWN_COUNTS.bySettlement);
    const recorded = Object.fromEntries(storeActions.map((action) => [action.id, action.settlement]));
    const pairs = [...html.matchAll(/\sdata-tool-action="([^"]*)" data-settlement="([^"]*)"/g)];
    for (const [, id = "", settlement] of pairs) assert.equal(settlement, recorded[decodeHtml(id)]);
  });

  it("orders invocations by commit and tool actions by admission, as the event stream does", () => {
    const toolIdsInCommitOrder = [
      ...new Set(input.events.filter((e) => e.invocation_tool_context).map((e) => e.action_instance_id)),
    ];
    assert.deepEqual(attributeValues(html, "data-tool-action"), toolIdsInCommitOrder);
    const invocations = attributeValues(html, "data-invocation");
    assert.equal(invocations.length, KNOWN_COUNTS.invocations);
    const firstSeen = invocations.map((id) =>
      input.events.findIndex(
        (e) => e.action_instance_id === id || e.invocation_tool_context?.invocation_action_instance_id === id,
      ),
    );
    assert.deepEqual(
      firstSeen,
      [...firstSeen].sort((a, b) => a - b),
    );
  });

  it("shows each invocation's status, and the consumed attempt that has no outer triple", () => {
    assert.deepEqual(attributeValues(html, "data-invocation-status"), [
      "succeeded",
      "no_outer_triple",
      "succeeded",
      "partial_success",
    ]);
    assert.match(visibleMarkup(html), /failed: attempt consumed, no outer triple/);
  });

  it("shows the stopped scheduler, the open resolution command and the recorded resolution", () => {
    const page = visibleMarkup(html);
    assert.match(page, /data-scheduler="stopped" data-stop-reason="tool_action_indeterminate"/);
    assert.deepEqual(attributeValues(page, "data-unresolved"), [run.unresolvedId]);
    // One command per decision, each naming the store, so it runs as printed; never a shell pipe.
    for (const effect of ["confirmed", "absent"]) {
      const command = printedCommand([
        "resolve",
        run.unresolvedId,
        "--effect",
        effect,
        "--store",
        "sqlite:.raes/control-plane.db",
      ]);
      assert.ok(page.includes(`data-effect="${effect}">${command}</code>`), effect);
    }
    assert.ok(!page.includes("confirmed|absent"));
    assert.deepEqual(attributeValues(page, "data-resolved"), [run.resolvedId]);
    assert.match(page, /effect_confirmed/);
    assert.equal(attributeValues(page, "data-tool-action").filter((id) => id === run.unresolvedId).length, 1);
    assert.match(page, /class="mark s-indeterminate needs-resolution"[^>]*data-tool-action="[^"]*:3:tool=3"/);
    assert.match(page, /class="mark s-indeterminate resolved"[^>]*data-tool-action="[^"]*:2:tool=2"/);
    // The legend counts the ringed and pale marks it explains, as the marks are drawn.
    const ringed = (page.match(/class="mark s-indeterminate needs-resolution"/g) ?? []).length;
    const pale = (page.match(/class="mark s-indeterminate resolved"/g) ?? []).length;
    assert.match(page, new RegExp(`data-legend-note="needs-resolution" data-count="${ringed}"`));
    assert.match(page, new RegExp(`data-legend-note="resolved" data-count="${pale}"`));
  });

  it("keeps each tool action's full invocation_tool_context and operation for its details panel", () => {
    const detailIds = [...html.matchAll(/class="mark[^"]*"[^>]*data-detail="([^"]+)"/g)].map(
      (m) => m[1] ?? "",
    );
    assert.equal(detailIds.length, KNOWN_COUNTS.toolActions);
    const contexts = input.events.filter(
      (e) => e.event_type === "observation_emitted" && e.invocation_tool_context,
    );
    for (const [index, event] of contexts.entries()) {
      const panel = detailTemplate(html, detailIds[index] ?? "");
      for (const [field, value] of Object.entries(event.invocation_tool_context ?? {})) {
        assert.deepEqual(attributeValues(panel, "data-field").includes(field), true, field);
        assert.ok(
          panel.includes(`data-field="${field}"><code>${String(value)}</code>`),
          `${field} = ${value}`,
        );
      }
      const operation = input.operations.find((o) => o.id === event.action_instance_id);
      assert.ok(operation && panel.includes(`data-field="state"><code>${operation.state}</code>`));
    }
  });

  it("is one self-contained page: strict CSP, nothing to fetch", () => {
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${TIMELINE_CSP}">`));
    // The one script runs by its hash; no inline script runs by being there.
    const script = /<script>([\s\S]*?)<\/script>/.exec(written)?.[1] ?? "";
    const hash = createHash("sha256").update(script).digest("base64");
    assert.equal(TIMELINE_CSP, `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'`);
    assert.doesNotMatch(TIMELINE_CSP, /script-src[^;]*unsafe/);
    assert.doesNotMatch(html, /\s(src|href)=|<link\b|@import|url\(|https?:\/\//i);
    // One script runs; the others are data blocks (rows and detail panels as JSON) that never run.
    assert.equal(written.match(/<script>/g)?.length, 1);
    assert.deepEqual(
      [...written.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]).filter((a) => a !== ""),
      [' type="application/json" id="timeline-rows"', ' type="application/json" id="timeline-details-0"'],
    );
  });
});

describe("renderTimelineHtml on crafted histories", () => {
  it("escapes every string from the data", () => {
    const page = withRows(renderTimelineHtml({ ...hostileHistory(), title: "<b>history</b>" }));
    assert.equal(page.match(/<script>/g)?.length, 1, "only the page's own script");
    assert.equal(page.match(/<script\b/g)?.length, 3, "and its two data blocks");
    // In the JSON block no string can close the block or open a tag.
    assert.doesNotMatch(
      /<script type="application\/json"[^>]*>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? "<",
      /</,
    );
    assert.doesNotMatch(page, /<img\b|__raesInjected = \d<\/script>/);
    assert.ok(page.includes("&lt;script&gt;window.__raesInjected = 1&lt;/script&gt;"));
    assert.ok(page.includes("<title>&lt;b&gt;history&lt;/b&gt;</title>"));
    assert.deepEqual(attributeValues(page, "data-participant"), [HOSTILE_PARTICIPANT]);
    const [, markDetail = ""] = attributeValues(page, "data-detail");
    const panel = detailTemplate(page, markDetail);
    assert.deepEqual(attributeValues(panel, "data-detail-tool-action"), [
      `${hostileHistory().events[0]?.action_instance_id}`,
    ]);
    assert.ok(
      panel.includes(
        `data-field="tool_call_id"><code>&lt;script&gt;window.__raesInjected = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__raesInjected = 2&quot;&gt;</code>`,
      ),
    );
  });

  it("sorts by sequence, separates participants, puts the one that needs an operator first and shows schedulers with no history", () => {
    const alpha = craftedInvocation("participant.behavior.alpha", 0);
    const beta = craftedInvocation("participant.behavior.beta", 0);
    const alphaActions = [
      craftedToolAction(alpha, 1, "a-1", "succeeded"),
      craftedToolAction(alpha, 2, "a-2", "failed"),
    ];
    const betaActions = [craftedToolAction(beta, 1, "b-1", "withheld")];
    const events = sequenced([
      ...committedDrafts(alpha, alphaActions, "succeeded"),
      ...committedDrafts(beta, betaActions, undefined),
    ]);
    const page = withRows(
      renderTimelineHtml({
        events: [...events].reverse(),
        operations: [...alphaActions, ...betaActions].map(toolOperation),
        schedulers: [
          { participantAddress: "participant.behavior.alpha", lifecycle: "running" },
          {
            participantAddress: "participant.behavior.gamma",
            lifecycle: "stopped",
            stopReason: "attempts_exhausted",
          },
        ],
      }),
    );
    // Gamma's scheduler stopped: it needs an operator, so it leads; the others keep history order.
    assert.deepEqual(attributeValues(page, "data-participant"), [
      "participant.behavior.gamma",
      "participant.behavior.alpha",
      "participant.behavior.beta",
    ]);
    assert.deepEqual(
      attributeValues(page, "data-tool-action"),
      [...alphaActions, ...betaActions].map((a) => a.id),
    );
    assert.deepEqual(attributeValues(page, "data-invocation-status"), ["succeeded", "no_outer_triple"]);
    assert.deepEqual(attributeValues(page, "data-scheduler"), ["stopped", "running", "unknown"]);
    assert.match(page, /No history events yet/);
  });

  it("names each stop reason in words on the scheduler badge, keeping the code as data", () => {
    const page = renderTimelineHtml({
      events: [],
      operations: [],
      schedulers: ["harness_error", "tool_action_indeterminate"].map((stopReason, i) => ({
        participantAddress: `participant.behavior.p${i}`,
        lifecycle: "stopped",
        stopReason,
      })),
    });
    assert.deepEqual(attributeValues(page, "data-stop-reason"), [
      "harness_error",
      "tool_action_indeterminate",
    ]);
    assert.deepEqual(
      [...page.matchAll(/<span class="scheduler-state">([^<]*)<\/span>/g)].map((m) => m[1]),
      ["scheduler stopped: the harness failed", "scheduler stopped: a tool action is indeterminate"],
    );
  });

  it("says so when an operation is missing, and still asks for the resolution of an indeterminate action", () => {
    const invocation = craftedInvocation("participant.behavior.alpha", 0);
    const action = craftedToolAction(invocation, 1, "lost", "indeterminate");
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(invocation, [action], "succeeded")),
      operations: [],
    });
    assert.match(page, /No operation with this id in the store/);
    assert.deepEqual(attributeValues(visibleMarkup(page), "data-unresolved"), [action.id]);
  });
});

describe("the time axis", () => {
  it("shows each invocation's real duration, from its first to its last event, and each tool action's", () => {
    const page = withRows(renderTimelineHtml(largeHistory(6)));
    // The fixture spreads invocation n over 1 + n % 4 seconds, alternating participants (alpha: 0, 2, 4).
    assert.deepEqual(attributeValues(page, "data-duration-ms"), [
      "1000",
      "3000",
      "1000",
      "2000",
      "4000",
      "2000",
    ]);
    assert.match(visibleMarkup(page), /class="invocation-meta">10:00:00 · 1\.00 s · 1 tool action</);
    const first = `${largeHistory(6).events[0]?.action_instance_id}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const detailId =
      new RegExp(`data-tool-action="${first}"[^>]*data-detail="([^"]+)"`).exec(page)?.[1] ?? "";
    const panel = detailTemplate(page, detailId);
    assert.match(panel, /data-field="admitted"><code>2025-06-01T10:00:00\.000250Z</);
    assert.match(panel, /data-field="duration"><code>/);
  });
});

describe("the page header's span", () => {
  it("starts at the earliest time recorded, not at the first event committed, and ends at the latest", () => {
    const history = largeHistory(4);
    // Commit order is not time order: the first event committed is stamped after the second.
    const [first, second] = history.events;
    assert.ok(first && second);
    const events = [{ ...first, timestamp: "2025-06-01T10:00:02.000000Z" }, ...history.events.slice(1)];
    const header = (markup: string) => /<p class="summary"[\s\S]*?<\/p>/.exec(markup)?.[0] ?? "";
    const moved = header(renderTimelineHtml({ events, operations: [] }));
    const earliest = events.slice(1).reduce((a, b) => (a.timestamp < b.timestamp ? a : b));
    assert.ok(earliest.timestamp < "2025-06-01T10:00:02.000000Z");
    assert.match(moved, new RegExp(`data-start="${earliest.timestamp}"`));
    // An invocation's record can start before any event of it: its start is the page's start.
    const operations = history.operations.map((o) =>
      o.kind === "scheduler_invocation" && o.id.endsWith(":0")
        ? { ...o, startedAt: "2025-06-01T09:59:58.500000Z" }
        : o,
    );
    assert.notDeepEqual(operations, history.operations);
    const started = header(renderTimelineHtml({ events: history.events, operations }));
    assert.match(started, /data-start="2025-06-01T09:59:58\.500000Z"/);
    const last = history.events.reduce((a, b) => (a.timestamp > b.timestamp ? a : b));
    assert.match(started, new RegExp(`data-end="${last.timestamp}"`));
  });
});

describe("the timeline page in headless Chromium", () => {
  // Skipped test by test, not as a suite: a skipped describe does not show in the skip count.
  const skip = browserSkipReason();
  let browser: Browser;
  let dir: string;
  before(async () => {
    if (skip) return;
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), "raes-timeline-"));
  });
  after(() => browser?.close());

  async function load(
    name: string,
    markup: string,
  ): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const file = join(dir, name);
    writeFileSync(file, markup);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(pathToFileURL(file).href);
    return { page, requests, errors };
  }

  it("draws one visible mark per tool action, per settlement; a click shows its context; screenshot saved", {
    skip,
  }, async (t) => {
    const { page, requests, errors } = await load("known.html", written);
    const marks = page.locator("[data-tool-action]");
    assert.equal(await marks.count(), storeActions.length);
    for (const [settlement, count] of Object.entries(countBy(storeActions.map((a) => a.settlement ?? "")))) {
      assert.equal(
        await page.locator(`[data-tool-action][data-settlement="${settlement}"]`).count(),
        count,
        settlement,
      );
    }
    for (const mark of await marks.all()) assert.ok(await mark.isVisible());

    const failed = storeActions.find((action) => action.settlement === "failed");
    assert.ok(failed);
    const mark = page.locator(`[data-tool-action="${failed.id}"]`);
    await mark.click();
    const panel = page.locator("#details-body");
    assert.equal(await panel.locator('[data-field="tool_call_id"]').textContent(), failed.toolCallId);
    assert.equal(
      await panel.locator('[data-field="admission_ordinal"]').textContent(),
      String(failed.admissionOrdinal),
    );
    assert.equal(await mark.getAttribute("aria-pressed"), "true");

    await page.locator(`[data-tool-action="${run.unresolvedId}"]`).click();
    assert.equal(await mark.getAttribute("aria-pressed"), "false");
    const commands = await panel.locator("code.command").allTextContents();
    assert.equal(commands.length, 2);
    assert.match(commands[0] ?? "", /^\S.* resolve \S+:3:tool=3 --effect confirmed --store sqlite:\S+$/);
    assert.match(commands[1] ?? "", /^\S.* resolve \S+:3:tool=3 --effect absent --store sqlite:\S+$/);

    // A link to one action (#id) opens its details.
    const linked = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await linked.goto(`${pathToFileURL(join(dir, "known.html")).href}#${encodeURIComponent(failed.id)}`);
    assert.equal(
      await linked.locator('#details-body [data-field="tool_call_id"]').textContent(),
      failed.toolCallId,
    );
    assert.equal(
      await linked.locator(`[data-tool-action="${failed.id}"]`).getAttribute("aria-pressed"),
      "true",
    );
    await linked.close();

    const shot = join(dir, "timeline.png");
    await page.screenshot({ path: shot, fullPage: true });
    assert.deepEqual([...readFileSync(shot).subarray(1, 4)], [...Buffer.from("PNG")]);
    t.diagnostic(`screenshot: ${shot}`);
    assert.deepEqual(requests, []);
    assert.deepEqual(errors, []);
  });

  it("shows hostile strings as text and runs none of them", { skip }, async () => {
    const { page, errors } = await load("hostile.html", renderTimelineHtml(hostileHistory()));
    await page.locator("[data-tool-action]").click();
    const injected = await page.evaluate(() => (globalThis as { __raesInjected?: unknown }).__raesInjected);
    assert.equal(injected, undefined);
    assert.equal(await page.locator("img").count(), 0);
    assert.equal(await page.locator("script:not([type])").count(), 1);
    const toolCallId = page.locator('#details-body [data-field="tool_call_id"]');
    assert.equal(await toolCallId.textContent(), HOSTILE_TOOL_CALL_ID);
    assert.equal(await page.locator(".participant h2").textContent(), HOSTILE_PARTICIPANT);
    assert.deepEqual(errors, []);
  });
});

/**
 * `npm run bench -- timeline [COUNT] [BLOCKS]`: the HTML timeline of COUNT invocations (default 10 000)
 * in headless Chromium. Renders the page once (time and size), then in alternating blocks against a
 * 100-invocation floor page (A B A B, same warm-up, same browser): the load to first usable render
 * (navigation start to the page script's first page drawn, then one animation frame painted) and one
 * settlement filter (uncheck, recount over every page, redraw, next frame), then one search over the
 * data (every third invocation matches), then the first details panel opened. Bars: load < 3 s, filter < 200 ms on an idle
 * machine; the ratio to the floor says how much of a figure is machine load.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { renderTimelineHtml } from "../../src/timeline/index.js";
import { launchChromium } from "../../test/fixtures/history/chromium.js";
import { largeHistory } from "../../test/fixtures/history/large.js";
import {
  MEASURE_DETAIL,
  MEASURE_FILTER,
  MEASURE_LOAD,
  MEASURE_SEARCH,
} from "../../test/fixtures/history/timing.js";
import { type BlockTime, fmt, median, printTable, rotate } from "../shared/index.js";

const say = (line: string) => process.stderr.write(`[timeline bench] ${line}\n`);

interface Sample {
  readonly load: number;
  readonly ready: number;
  readonly filter: number;
  readonly search: number;
  readonly detail: number;
}

async function sample(browser: Browser, file: string): Promise<Sample> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(pathToFileURL(file).href, { timeout: 300_000 });
    const load = Number(await page.evaluate(MEASURE_LOAD));
    const ready = Number(await page.evaluate("document.documentElement.dataset.readyMs"));
    const filter = Number(await page.evaluate(MEASURE_FILTER));
    const search = Number(await page.evaluate(MEASURE_SEARCH("fetch_page")));
    const detail = Number(await page.evaluate(MEASURE_DETAIL));
    return { load, ready, filter, search, detail };
  } finally {
    await page.close();
  }
}

/** Runs the suite. */
export async function runTimelineBench(argv: readonly string[]): Promise<void> {
  const count = Number(argv[0] ?? 10_000);
  const blocks = Number(argv[1] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), "raes-timeline-bench-"));
  const files: string[] = [];
  const sizes: number[] = [];
  const renders: number[] = [];
  for (const n of [count, 100]) {
    const history = largeHistory(n);
    const start = performance.now();
    const html = renderTimelineHtml(history);
    renders.push(performance.now() - start);
    sizes.push(Buffer.byteLength(html));
    const file = join(dir, `timeline-${n}.html`);
    writeFileSync(file, html);
    files.push(file);
    say(
      `${n} invocations: rendered in ${fmt(renders.at(-1) ?? 0, 0)} ms, ${fmt(Buffer.byteLength(html) / 1e6, 1)} MB`,
    );
  }
  const browser = await launchChromium();
  const samples: Sample[][] = [[], []];
  try {
    const sides = files.map((file, k) => async (): Promise<BlockTime> => {
      const s = await sample(browser, file);
      samples[k]?.push(s);
      return { ms: s.load, units: 1 };
    });
    await rotate(sides, { blocks, warmup: 1 });
  } finally {
    await browser.close();
  }
  // The warm-up block of each side is dropped: it pays for the browser's first page.
  const timed = samples.map((list) => list.slice(1));
  const med = (k: number, key: keyof Sample) => median((timed[k] ?? []).map((s) => s[key]));
  const labels: Record<keyof Sample, string> = {
    load: "load to first usable render (painted)",
    ready: "load to page script done",
    filter: "settlement filter (painted)",
    search: 'search "fetch_page" (painted)',
    detail: "first details panel opened (painted)",
  };
  const rows = (["load", "ready", "filter", "search", "detail"] as const).map((key) => [
    labels[key],
    fmt(med(0, key), 0),
    fmt(med(1, key), 0),
    fmt(med(0, key) / med(1, key), 2),
  ]);
  printTable(
    `HTML timeline in headless Chromium, median of ${blocks} blocks (ms)`,
    [`case`, `${count} invocations`, "floor: 100", "× floor"],
    [
      ...rows,
      ["page size (MB)", fmt((sizes[0] ?? 0) / 1e6, 1), fmt((sizes[1] ?? 0) / 1e6, 2), ""],
      ["render in node (ms)", fmt(renders[0] ?? 0, 0), fmt(renders[1] ?? 0, 0), ""],
    ],
  );
}

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fillSqliteHistory, historyTemplates } from "../../bench/shared/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { modelWithAttempts, ROOT } from "../helpers/example.js";

/** Events in the store: their records take several times the heap the command gets. */
const EVENTS = 20_000;
/**
 * The V8 old space `raes history --html` gets, in MB: enough for what the page draws of each event,
 * too little for every event read whole and the page held as one string.
 */
const HEAP_MB = 40;

describe("raes history --html on a large history with a small heap", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-history-html-memory-"));
  const db = join(dir, "large.db");
  let events = 0;
  before(async () => {
    events = await fillSqliteHistory(db, await historyTemplates(modelWithAttempts(1_000_000)), EVENTS);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`writes the whole page of ${EVENTS} events with a ${HEAP_MB} MB heap`, async () => {
    const page = join(dir, "timeline.html");
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          `--max-old-space-size=${HEAP_MB}`,
          ...cliNodeArgs(["history", "--store", `sqlite:${db}`, "--html", page]),
        ],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4_000)));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${page}\n`);
    const html = readFileSync(page, "utf8");
    assert.match(html, new RegExp(`data-events="${events}"`), "the summary counts every event");
    assert.ok(html.endsWith("</html>\n"), "the page is written to its end");
    assert.deepEqual(readdirSync(dir).sort(), ["large.db", "timeline.html"], "no partial file is left");
  });
});

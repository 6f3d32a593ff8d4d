import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fillSqliteHistory, historyTemplates } from "../../bench/shared/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { modelWithAttempts, ROOT } from "../helpers/example.js";

/** Events in the store: their JSON is about 40 MB, several times the heap the readers get. */
const EVENTS = 20_000;
/** The V8 old space each reader gets, in MB: far below what holding the whole history takes. */
const HEAP_MB = 32;

/** Runs `raes ARGS` from source with a small heap, its stdout into `file`. */
function raesSmallHeap(
  args: readonly string[],
  file: string,
): Promise<{ code: number | null; stderr: string }> {
  const out = openSync(file, "w");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, ...cliNodeArgs(args)], {
      cwd: ROOT,
      stdio: ["ignore", out, "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    closeSync(out);
    let stderr = "";
    child.stderr?.on("data", (d) => {
      stderr = (stderr + d).slice(-4_000);
    });
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("read commands on a large history with a small heap", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-read-streaming-"));
  const db = join(dir, "large.db");
  let events = 0;
  before(async () => {
    events = await fillSqliteHistory(db, await historyTemplates(modelWithAttempts(1_000_000)), EVENTS);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`raes history --json prints every event with a ${HEAP_MB} MB heap: it streams pages`, async () => {
    const file = join(dir, "history.json");
    const r = await raesSmallHeap(["history", "--json", "--store", `sqlite:${db}`], file);
    assert.equal(r.code, 0, r.stderr);
    const printed = JSON.parse(readFileSync(file, "utf8")) as { events: { sequence: number }[] };
    assert.equal(printed.events.length, events);
    assert.ok(
      printed.events.every((e, i) => e.sequence === i + 1),
      "every event once, in commit order",
    );
  });

  it(`raes history prints a line per event with a ${HEAP_MB} MB heap`, async () => {
    const file = join(dir, "history.txt");
    const r = await raesSmallHeap(["history", "--store", `sqlite:${db}`], file);
    assert.equal(r.code, 0, r.stderr);
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    assert.equal(lines.length, events);
    assert.match(lines.at(-1) ?? "", new RegExp(`^ *${events} observation_emitted `));
  });
});

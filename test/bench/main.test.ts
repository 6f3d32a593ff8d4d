import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";

const MAIN = join(ROOT, "bench", "main.ts");

/** `npm run bench -- ARGS`, as npm runs it, from the repository root. */
function bench(args: readonly string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, encoding: "utf8" });
}

describe("npm run bench -- --markdown", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-bench-markdown-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes a page of this run's tables, with the commit, the date, the load and the command", () => {
    const page = join(dir, "benchmarks.md");
    const before = new Date().toISOString().slice(0, 10);
    const run = bench(["v2", "--quick", `--markdown=${page}`]);
    const afterRun = new Date().toISOString().slice(0, 10);
    assert.equal(run.status, 0, run.stderr);
    const text = readFileSync(page, "utf8");

    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    assert.match(text, new RegExp(`at commit \`${commit}(-dirty)?\``));
    assert.ok(text.includes(before) || text.includes(afterRun), "the date of the run");
    assert.match(text, /load average of \d+\.\d\d \/ \d+\.\d\d \/ \d+\.\d\d/);
    assert.ok(text.includes(`npm run bench -- v2 --quick --markdown=${page}`), "the command that made it");
    // The suite's tables, as markdown, under its own heading: and no other suite.
    assert.match(text, /^\| attempts per run \| µs per attempt \| ratio to 10² \| bound \|$/m);
    assert.match(text, /^\|---\|---\|---\|---\|$/m);
    assert.match(text, /^\| 10 000 \| [\d.,]+ \| [\d.]+ \| /m);
    assert.match(text, /^\| bounded draws .* \| bare BLAKE3 keyed hash, 32-byte XOF \| /m);
    assert.deepEqual(
      text.match(/^## .*$/gm)?.map((heading) => heading.replace(/;.*/, "")),
      ["## Reproduce", "## `v2` (`--quick`"],
    );
  });

  it("writes no page when no suite is named, and says how to name one", () => {
    const page = join(dir, "none.md");
    const run = bench([`--markdown=${page}`]);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /usage: npm run bench -- <suite\|all>/);
    assert.equal(existsSync(page), false);
  });
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { buildProgram, runCli } from "../../src/cli/program.js";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { raes } from "./cli.js";

const PROBE = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");

/** Runs the CLI in this process, so the bound measures the command's own work, not node's start-up. */
async function timedCli(argv: readonly string[]): Promise<{ code: number; stderr: string; ms: number }> {
  // Load the command's modules first: the bound is on the command, not on compiling its source.
  await buildProgram(argv);
  let stderr = "";
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  const started = performance.now();
  try {
    const code = await runCli(argv);
    return { code, stderr, ms: performance.now() - started };
  } finally {
    process.stderr.write = write;
    process.exitCode = undefined;
  }
}

describe("every usage error exits 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-usage-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, "fifo");
  execFileSync("mkfifo", [fifo]);
  const folder = join(dir, "folder");
  mkdirSync(folder);
  const store = `sqlite:${join(dir, "cp.db")}`;

  /** Each command line reading one file, with X where the file goes. */
  const commands: readonly (readonly string[])[] = [
    ["validate", "X"],
    ["compile", "X"],
    ["compile", EXAMPLE_SCENARIO, "-o", "X"],
    ["manifest", "check", "X"],
    ["manifest", "check", EXAMPLE_MANIFEST, "--scenario", "X"],
    ["run", "X", "--manifest", EXAMPLE_MANIFEST, "--runtime", PROBE, "--store", store],
    ["run", EXAMPLE_SCENARIO, "--manifest", "X", "--runtime", PROBE, "--store", store],
    ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", "X", "--store", store],
    ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", PROBE, "--store", "sqlite:X"],
    ["history", "--store", "sqlite:X"],
    ["history", "--store", store, "--html", "X"],
    ["operation", "some-id", "--store", "sqlite:X"],
    ["resolve", "some-id", "--effect", "absent", "--store", "sqlite:X"],
    ["resume", "some.participant", "--store", "sqlite:X"],
    ["mcp-gateway", "--port-socket", join(dir, "none.sock"), "--map", "X", "--", "node", "x.js"],
    ["demo", "--store", "sqlite:X"],
    ["demo", "--html", "X"],
    ["verify", "X"],
    ["verify", "--public-key", "X", "X"],
    ["export", "--bundle", join(dir, "evidence.jsonl"), "--include-inputs", "X", "--store", "memory:"],
  ];

  it("each command fed /dev/zero, a FIFO or a directory exits 2 at once with a clear message", async () => {
    process.env.RAES_PORT_TOKEN = "t";
    try {
      for (const command of commands) {
        for (const special of ["/dev/zero", fifo, folder]) {
          const argv = command.map((arg) => arg.replace(/^(sqlite:)?X$/, `$1${special}`));
          const { code, stderr, ms } = await timedCli(argv);
          const what = argv.join(" ");
          assert.equal(code, 2, `${what}: ${stderr}`);
          assert.match(stderr, /is a (character device|FIFO|directory), not a regular file/, what);
          // A FIFO read would hang for ever and /dev/zero read whole aborts the process; 5 s leaves
          // room for a loaded CI machine without hiding either.
          assert.ok(ms < 5_000, `${what} took ${Math.round(ms)} ms`);
        }
      }
    } finally {
      delete process.env.RAES_PORT_TOKEN;
    }
  });

  it("a bad --steps, --concurrency or --store exits 2 on every command that takes it", async () => {
    const run = ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", PROBE];
    for (const argv of [
      [...run, "--steps", "abc", "--store", store],
      [...run, "--steps", "0", "--store", store],
      [...run, "--steps", "1.5", "--store", store],
      [...run, "--concurrency", "0", "--store", store],
      [...run, "--concurrency", "two", "--store", store],
      [...run, "--store", "foo:bar"],
      ["history", "--store", "foo:bar"],
      ["operation", "x", "--store", "foo:bar"],
      ["resolve", "x", "--effect", "absent", "--store", "foo:bar"],
      ["resume", "x", "--store", "foo:bar"],
      ["demo", "--store", "foo:bar"],
      ["history", "--store", "sqlite:"],
    ]) {
      const { code, stderr } = await timedCli(argv);
      assert.equal(code, 2, `${argv.join(" ")}: ${stderr}`);
      assert.match(stderr, /--steps|--store|--concurrency/, argv.join(" "));
    }
  });

  it("a real raes process exits 2 for a FIFO and for --steps abc", async () => {
    const fed = await raes(["validate", fifo]);
    assert.equal(fed.code, 2, fed.stderr);
    assert.match(fed.stderr, /is a FIFO, not a regular file/);
    const steps = await raes([
      "run",
      EXAMPLE_SCENARIO,
      "--manifest",
      EXAMPLE_MANIFEST,
      "--runtime",
      PROBE,
      "--steps",
      "abc",
    ]);
    assert.equal(steps.code, 2, steps.stderr);
    assert.match(steps.stderr, /--steps/);
  });
});

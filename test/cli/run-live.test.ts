import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { liveScenario } from "../fixtures/live/scenario.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_MANIFEST, ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { type CliRun, raes } from "./cli.js";

const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const tmp = () => mkdtempSync(join(tmpdir(), "raes-live-"));

const runArgs = (scenario: string, store: string, ...extra: string[]) => [
  "run",
  scenario,
  "--manifest",
  EXAMPLE_MANIFEST,
  "--runtime",
  HARNESS,
  "--store",
  store,
  ...extra,
];

describe("raes run --tick-ms", () => {
  it("steps in real time until --steps, and reports the pacing in the summary", async () => {
    const dir = tmp();
    const run = await raes([
      ...runArgs(
        liveScenario(dir, 100_000),
        `sqlite:${join(dir, "cp.db")}`,
        "--tick-ms",
        "20",
        "--steps",
        "10",
      ),
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.invocations, 10);
    assert.deepEqual([summary.pacing.tick_ms, summary.pacing.steps, summary.pacing.ended], [20, 10, "steps"]);
    assert.equal(typeof summary.pacing.late_steps, "number");
    assert.equal(typeof summary.pacing.worst_lateness_ms, "number");
  });

  it("without --steps, ends when every scheduler has finished (the example allows two attempts)", async () => {
    const dir = tmp();
    const run = await raes(runArgs(liveScenario(dir), `sqlite:${join(dir, "cp.db")}`, "--tick-ms", "10"));
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /real time: 2 steps at 10 ms in [\d.]+ s \(schedulers_finished\) \| late steps \d+/,
    );
  });

  it("Ctrl-C ends a run that has no end of its own after the open step, with the summary", async () => {
    const dir = tmp();
    const child = spawn(
      process.execPath,
      cliNodeArgs([
        ...runArgs(liveScenario(dir, 100_000), `sqlite:${join(dir, "cp.db")}`, "--tick-ms", "20", "--json"),
      ]),
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RAES_TEST_SLOW_MS: "1" } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    // The probe harness prints INVOKING per invocation when RAES_TEST_SLOW_MS is set.
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", () => {
        if ((stderr.match(/INVOKING /g) ?? []).length >= 3) resolve();
      });
      child.on("close", () => reject(new Error(`raes run ended before the signal: ${stderr}`)));
    });
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    assert.match(stderr, /stopping after the open invocation closes/);
    const summary = JSON.parse(stdout);
    assert.equal(summary.pacing.ended, "signal");
    assert.ok(summary.pacing.steps >= 2);
    assert.equal(summary.invocations, summary.pacing.steps, "every step ran its due invocation");
  });
});

/** util-linux `script`, which runs a command under a pseudo-terminal; BSD's has another syntax. */
const hasScript = spawnSync("script", ["-qfc", "true", "/dev/null"], { stdio: "ignore" }).status === 0;

/** Runs `raes ARGS` under a pseudo-terminal, so stdout is a TTY; resolves with all it printed. */
function raesOnTty(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, ...cliNodeArgs(args)].map(quote).join(" ");
  return new Promise((resolve) => {
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("raes run --tick-ms on a terminal", { skip: hasScript ? false : "no util-linux script" }, () => {
  it("redraws one progress line per step: the clock tick, each policy's next due tick (done at the end), and the lateness", async () => {
    const dir = tmp();
    // Three attempts, each held 60 ms: steps 2 and 3 start at least 60 - 20 = 40 ms after their due time.
    const run = await raesOnTty(
      runArgs(liveScenario(dir, 3), `sqlite:${join(dir, "cp.db")}`, "--tick-ms", "20"),
      { RAES_TEST_SLOW_MS: "60" },
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    // The terminal shows stderr too (the probe's INVOKING lines); each redraw starts with CR and erase-line.
    const redraws = run.stdout.split("\r\x1b[K").slice(1);
    const steps = redraws
      .map((text) =>
        /^step (\d+) \| tick (\d+) \| next participant-behavior@(\d+|done) \| late (\d+) ms \| invocations (\d+) \|/.exec(
          text,
        ),
      )
      .filter((m) => m !== null)
      .map((m) => ({
        step: Number(m[1]),
        tick: Number(m[2]),
        next: m[3],
        late: Number(m[4]),
        invocations: Number(m[5]),
      }));
    assert.deepEqual(
      [...new Map(steps.map((s) => [s.step, [s.tick, s.next]])).entries()],
      [
        [1, [10, "20"]],
        [2, [20, "30"]],
        [3, [30, "done"]],
      ],
      run.stdout,
    );
    for (const s of steps.filter((s) => s.step >= 2))
      assert.ok(s.late >= 40, `step ${s.step} shows lateness ${s.late} ms after a 60 ms step`);
    assert.equal(steps.at(-1)?.invocations, 3);
    assert.match(
      run.stdout,
      /real time: 3 steps at 20 ms in [\d.]+ s \(schedulers_finished\) \| late steps 2,/,
    );
  });

  it("writes no redraws when stdout is not a terminal", async () => {
    const dir = tmp();
    const run = await raes(runArgs(liveScenario(dir, 3), `sqlite:${join(dir, "cp.db")}`, "--tick-ms", "20"));
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes("\r"), run.stdout);
    assert.doesNotMatch(run.stdout, /step \d+ \| tick/);
  });
});

describe("raes run with offer timeouts", () => {
  it("logs each discarded late result once: a harness that ignores its AbortSignal and returns after the timeout", async () => {
    const dir = tmp();
    const manifest = join(dir, "manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(1)));
    const scenario = join(dir, "continue.sdl.yaml");
    // A timed-out attempt does not stop the scheduler, so both steps time out.
    writeFileSync(
      scenario,
      readFileSync(liveScenario(dir, 100_000), "utf8").replace(
        "failure_policy: stop",
        "failure_policy: continue",
      ),
    );
    const args = runArgs(scenario, `sqlite:${join(dir, "cp.db")}`, "--steps", "2");
    args[args.indexOf(EXAMPLE_MANIFEST)] = manifest;
    const run = await raes(args, { env: { RAES_TEST_IGNORE_MS: "1500" } });
    assert.equal(run.code, 0, run.stderr);
    const invoked = [...run.stderr.matchAll(/^INVOKING (\S+)$/gm)].map((m) => m[1]);
    assert.equal(invoked.length, 2, run.stderr);
    const late = run.stderr.split("\n").filter((line) => line.includes("late"));
    assert.deepEqual(
      late,
      invoked.map(
        (id) => `raes run: ${id} timed out earlier; its harness returned late and that result was discarded`,
      ),
    );
    assert.match(run.stdout, /invocations 2 \| tool actions 0/);
  });
});

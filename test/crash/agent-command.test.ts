import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { groupMembers, signalGroup } from "../../src/agent/index.js";
import { liveScenario } from "../fixtures/live/scenario.js";
import { ChildScript, MARKER_WAIT_MS } from "../helpers/child-process.js";
import { ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";

const CLI = join(ROOT, "src", "cli", "main.ts");
const LIVE = join(ROOT, "test", "fixtures", "live");
const nodeTs = (file: string) => `${process.execPath} --import ${import.meta.resolve("tsx")} ${file}`;
/** How long the killed run's agent group may take to go: the watchdog's grace is 2 s. */
const GONE_WITHIN_MS = 30_000;

/** The processes whose environment carries `marker`: what a run started, wherever it went. */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker))
        found.push(Number(entry));
    } catch {
      // Gone while read, or not ours to read.
    }
  }
  return found;
}

/** The process group of a live process. */
function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** A process for a failure message: pid, group and command line. */
function describeProcess(pid: number): string {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    return `${pid} (group ${groupOf(pid)}) ${cmd}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Waits until `done()` holds, or throws after `ms` with what `state()` says. */
async function until(done: () => boolean, ms: number, state: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`still there after ${ms} ms: ${state()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The agent log's text once some log has `line`. */
async function logLine(logs: string, line: RegExp, run: ChildScript): Promise<string> {
  const deadline = Date.now() + MARKER_WAIT_MS;
  for (;;) {
    const files = existsSync(logs) ? readdirSync(logs) : [];
    for (const file of files) {
      const text = readFileSync(join(logs, file), "utf8");
      if (line.test(text)) return text;
    }
    const exit = await Promise.race([run.exited, new Promise((r) => setTimeout(r, 200, undefined))]);
    if (exit) throw new Error(`raes run ended (${JSON.stringify(exit)}) first: ${run.stderr}`);
    if (Date.now() > deadline) throw new Error(`no ${line} in ${logs}: ${run.stderr}`);
  }
}

describe("raes run --agent-command killed with SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-agent-crash-"));
  const cleanups: (() => void)[] = [];
  after(() => {
    for (const cleanup of cleanups) cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the agent's whole process group (agent, gateway, upstream) with it, and a restart finds no orphan", async () => {
    const manifest = join(dir, "manifest.json");
    // No timeout can end the hanging agent: only the runtime's death can.
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(3_600)));
    const countFile = join(dir, "count");
    const logs = join(dir, "logs");
    const marker = `RAES_CRASH_MARK=${dir}`;
    const args = [
      "run",
      liveScenario(dir),
      "--manifest",
      manifest,
      "--agent-command",
      `bash ${join(LIVE, "shell-agent.sh")}`,
      "--mcp-upstream",
      `portal=${marker} COUNT_FILE=${countFile} ${nodeTs(join(LIVE, "counting-upstream.ts"))}`,
      "--map",
      join(LIVE, "map.yaml"),
      "--agent-logs",
      logs,
      "--store",
      `sqlite:${join(dir, "cp.db")}`,
      "--json",
    ];
    const crashed = ChildScript.start(CLI, args, {
      AGENT_MODE: "hang",
      RAES_CRASH_MARK: dir,
    });
    let group = 0;
    // Whatever happens, this test leaves no process behind.
    cleanups.push(() => {
      if (group > 0) signalGroup(group, "SIGKILL");
      for (const pid of processesMarked(marker)) process.kill(pid, "SIGKILL");
    });
    try {
      const log = await logLine(logs, /^HANGING$/m, crashed);
      group = groupOf(Number(/^PID (\d+)$/m.exec(log)?.[1]));
    } finally {
      await crashed.stop();
    }
    assert.equal((await crashed.exited).signal, "SIGKILL");
    const upstreamPid = Number(readFileSync(countFile, "utf8").split(" ")[1]);
    assert.ok(group > 0 && upstreamPid > 0, "the agent hung after its call reached the upstream");
    assert.ok(groupMembers(group).length > 0, "the agent's group was there when raes run died");

    await until(
      () => groupMembers(group).length === 0,
      GONE_WITHIN_MS,
      () => `group ${group}: ${groupMembers(group).map(describeProcess).join("; ")}`,
    );
    await until(
      () => processesMarked(marker).length === 0,
      GONE_WITHIN_MS,
      () => `marked: ${processesMarked(marker).map(describeProcess).join("; ")}`,
    );

    const restarted = ChildScript.start(CLI, args, { RAES_CRASH_MARK: dir });
    const exit = await restarted.exited;
    assert.ok(
      exit.code === 0 || exit.code === 1,
      `restart exit ${JSON.stringify(exit)}: ${restarted.stderr}`,
    );
    assert.match(restarted.stderr, /recovered an interrupted run: 1 attempt was consumed/);
    assert.deepEqual(processesMarked(marker).map(describeProcess), [], "nothing of either run is left");
  });
});

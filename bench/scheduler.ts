/**
 * `npm run bench -- scheduler`: outer invocations per second, and whether the per-action cost
 * grows with history length. Each run opens a fresh manager, steps the clock n times (one due
 * action per step in the example) and timestamps every step, so the cost of the first and the
 * last window of actions can be compared.
 */
import { RuntimeManager } from "../src/index.js";
import { modelWithAttempts } from "../test/helpers/example.js";
import { fmt, printTable } from "./lib.js";
import {
  manifestWithoutClaim,
  manifestWithToolLimit,
  noopRuntime,
  quickMode,
  scratchDir,
  ToolCallRuntime,
} from "./store-harness.js";

type Variant = "no-op" | "1 tool action";

interface RunResult {
  readonly n: number;
  readonly totalMs: number;
  /** Mean per-action wall time of the first and the last window, microseconds. */
  readonly firstUs: number;
  readonly lastUs: number;
  /** The same windows in CPU time of this process (user + system), microseconds. */
  readonly firstCpuUs: number;
  readonly lastCpuUs: number;
}

const WINDOW = 100;

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function runOnce(variant: Variant, n: number, store: string): Promise<RunResult> {
  const runtime = variant === "no-op" ? noopRuntime() : new ToolCallRuntime(1);
  const manifest = variant === "no-op" ? manifestWithoutClaim() : manifestWithToolLimit(16);
  const manager = await RuntimeManager.open({ model: modelWithAttempts(n), manifest, runtime, store });
  const w = Math.min(WINDOW, n);
  // Stamped only at window edges, so taking the stamps costs nothing per action.
  const wall = new Map<number, number>();
  const cpu = new Map<number, number>();
  const stamp = (i: number) => {
    if (i === 0 || i === w || i === n - w || i === n) {
      wall.set(i, performance.now());
      cpu.set(i, cpuUs());
    }
  };
  try {
    stamp(0);
    for (let i = 1; i <= n; i += 1) {
      const { invocations } = await manager.step(1);
      if (invocations.length !== 1 || invocations[0]?.state !== "succeeded") {
        throw new Error(`step ${i} ran ${invocations.length} invocations (${invocations[0]?.state})`);
      }
      stamp(i);
    }
  } finally {
    await manager.close();
  }
  const span = (m: Map<number, number>, from: number, to: number) =>
    ((m.get(to) ?? 0) - (m.get(from) ?? 0)) / w;
  return {
    n,
    totalMs: (wall.get(n) ?? 0) - (wall.get(0) ?? 0),
    firstUs: span(wall, 0, w) * 1000,
    lastUs: span(wall, n - w, n) * 1000,
    firstCpuUs: span(cpu, 0, w),
    lastCpuUs: span(cpu, n - w, n),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Runs every size `reps` times, sizes interleaved so a change in machine load hits all of them,
 * and keeps the median of every figure so one GC pause or preemption does not decide.
 */
async function measure(variant: Variant, sizes: readonly number[], reps: number, store: () => string) {
  const runs = new Map<number, RunResult[]>(sizes.map((n) => [n, []]));
  for (let r = 0; r < reps; r += 1) {
    for (const n of sizes) runs.get(n)?.push(await runOnce(variant, n, store()));
  }
  return sizes.map((n): RunResult => {
    const of = (pick: (x: RunResult) => number) => median((runs.get(n) ?? []).map(pick));
    return {
      n,
      totalMs: of((x) => x.totalMs),
      firstUs: of((x) => x.firstUs),
      lastUs: of((x) => x.lastUs),
      firstCpuUs: of((x) => x.firstCpuUs),
      lastCpuUs: of((x) => x.lastCpuUs),
    };
  });
}

function rows(storeName: string, variant: Variant, results: readonly RunResult[]): string[][] {
  return results.map((r) => [
    storeName,
    variant,
    fmt(r.n, 0),
    fmt((r.n / r.totalMs) * 1000, 0),
    fmt((r.totalMs / r.n) * 1000, 1),
    `${fmt(r.firstUs, 1)} / ${fmt(r.firstCpuUs, 1)}`,
    `${fmt(r.lastUs, 1)} / ${fmt(r.lastCpuUs, 1)}`,
    `${fmt(r.lastUs / r.firstUs, 2)} / ${fmt(r.lastCpuUs / r.firstCpuUs, 2)}`,
  ]);
}

/** Last window at the largest size over the last window at the smallest: growth with history. */
function growthRow(storeName: string, variant: Variant, results: readonly RunResult[]): string[] {
  const small = results[0];
  const large = results[results.length - 1];
  if (!small || !large) return [storeName, variant, "-", "-", "-", "-", "-", "-"];
  const wall = large.lastUs / small.lastUs;
  const cpu = large.lastCpuUs / small.lastCpuUs;
  const verdict = (r: number) => (r <= 1.2 ? "met" : "MISSED");
  return [
    storeName,
    variant,
    `${fmt(large.n, 0)} / ${fmt(small.n, 0)}`,
    `${fmt(small.lastUs, 1)} / ${fmt(small.lastCpuUs, 1)}`,
    `${fmt(large.lastUs, 1)} / ${fmt(large.lastCpuUs, 1)}`,
    `${fmt(wall, 2)} ${verdict(wall)}`,
    `${fmt(cpu, 2)} ${verdict(cpu)}`,
  ];
}

/** Runs the scheduler suite and prints its tables. */
export async function runSchedulerBench(argv: readonly string[] = []): Promise<void> {
  const quick = quickMode(argv);
  const memorySizes = [100, 1_000, 10_000];
  const sqliteSizes = quick ? [100, 1_000] : [1_000, 10_000];
  const reps = quick ? 3 : 5;
  const variants: Variant[] = ["no-op", "1 tool action"];
  const table: string[][] = [];
  const growth: string[][] = [];
  const scratch = scratchDir("raes-bench-scheduler-");
  let files = 0;
  const sqliteUrl = () => {
    files += 1;
    return `sqlite:${scratch.dir}/scheduler-${files}.db`;
  };
  try {
    for (const variant of variants) {
      // Warm the JIT first so the smallest size is not charged for compilation.
      await runOnce(variant, 2_000, "memory:");
      const memory = await measure(variant, memorySizes, reps, () => "memory:");
      table.push(...rows("memory", variant, memory));
      growth.push(growthRow("memory", variant, memory));
      const sqlite = await measure(variant, sqliteSizes, 1, sqliteUrl);
      table.push(...rows("sqlite", variant, sqlite));
      growth.push(growthRow("sqlite", variant, sqlite));
    }
  } finally {
    scratch.dispose();
  }
  const windowHeader = (which: string) => `${which} ${WINDOW} µs wall / cpu`;
  printTable(
    `scheduler: one due action per step; memory: median of ${reps} runs, sqlite (WAL, synchronous=FULL): 1 run`,
    [
      "store",
      "variant",
      "actions",
      "inv/s",
      "mean µs/action",
      windowHeader("first"),
      windowHeader("last"),
      "last/first",
    ],
    table,
  );
  printTable(
    `scheduler: per-action cost, last ${WINDOW} actions at the largest size over the smallest (goal ≤ 1.2)`,
    ["store", "variant", "sizes", "small µs wall / cpu", "large µs wall / cpu", "ratio wall", "ratio cpu"],
    growth,
  );
  console.log(
    "\nwall = elapsed time; cpu = this process's user+system time over the same window (less sensitive to other load).",
  );
}

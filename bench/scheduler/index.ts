/**
 * `npm run bench -- scheduler`: outer invocations per second at 100, 1 000 and 10 000 actions, and
 * whether the per-action cost grows with history length.
 *
 * A run of size n steps one manager ("long") n times; the example has one due action per step.
 * Its last 100 actions are stepped in alternation with the first 100 actions of a fresh manager
 * ("fresh") on the same kind of store, so both windows see the same machine load: their ratio is
 * the per-action cost at history length n over the cost at history length 100.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { RuntimeManager } from "../../src/index.js";
import { modelWithAttempts } from "../../test/helpers/example.js";
import {
  alternate,
  type Block,
  fmt,
  manifestWithoutClaim,
  manifestWithToolLimit,
  median,
  noopRuntime,
  printNote,
  printTable,
  quickMode,
  scratchDir,
  ToolCallRuntime,
} from "../shared/index.js";
import { openSchedulerFloor } from "./floor.js";

type Variant = "no-op" | "1 tool action";

/** Per-action wall time of a window of steps, microseconds: the mean, and the median step. */
interface Window {
  readonly mean: number;
  readonly median: number;
}

interface RunResult {
  readonly n: number;
  /** Whole run of the long manager, milliseconds. */
  readonly totalMs: number;
  /** The long manager's first window, its last window, and the fresh manager's window beside the last. */
  readonly first: Window;
  readonly last: Window;
  readonly fresh: Window;
}

const WINDOW = 100;

// A full collection between runs, so no run pays for the garbage the previous one left.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

function windowOf(stepsMs: readonly number[]): Window {
  const sum = stepsMs.reduce((a, b) => a + b, 0);
  return { mean: (sum / stepsMs.length) * 1000, median: median(stepsMs) * 1000 };
}

async function openManager(variant: Variant, n: number, store: string): Promise<RuntimeManager> {
  return RuntimeManager.open({
    // One more attempt than steps: the cadence's start tick runs one invocation at open.
    model: modelWithAttempts(n + 1),
    manifest: variant === "no-op" ? manifestWithoutClaim() : manifestWithToolLimit(16),
    runtime: variant === "no-op" ? noopRuntime() : new ToolCallRuntime(1),
    store,
  });
}

async function stepOnce(manager: RuntimeManager): Promise<void> {
  const { invocations } = await manager.step(1);
  if (invocations.length !== 1 || invocations[0]?.state !== "succeeded") {
    throw new Error(`a step ran ${invocations.length} invocations (${invocations[0]?.state})`);
  }
}

/** `steps` steps of a manager as one block. */
function stepBlock(manager: RuntimeManager, steps = 1): Block {
  return async () => {
    const start = performance.now();
    for (let i = 0; i < steps; i += 1) await stepOnce(manager);
    return { ms: performance.now() - start, units: steps };
  };
}

async function runOnce(variant: Variant, n: number, store: () => string): Promise<RunResult> {
  const w = Math.min(WINDOW, n);
  const long = await openManager(variant, n, store());
  const fresh = await openManager(variant, n, store());
  try {
    collect();
    const steps: number[] = [];
    const one = stepBlock(long);
    for (let i = 1; i <= n - w; i += 1) steps.push((await one()).ms);
    // The last window steps long and fresh in alternation, one step a block.
    const last = await alternate(one, stepBlock(fresh), { blocks: w, warmup: 0 });
    steps.push(...last.real.map((b) => b.ms));
    const freshSteps = last.floor.map((b) => b.ms);
    return {
      n,
      totalMs: steps.reduce((a, b) => a + b, 0),
      first: windowOf(steps.slice(0, w)),
      last: windowOf(steps.slice(n - w)),
      fresh: windowOf(freshSteps),
    };
  } finally {
    await long.close();
    await fresh.close();
  }
}

/** Every size `reps` times, sizes interleaved; each figure is the median over the repetitions. */
async function measure(variant: Variant, sizes: readonly number[], reps: number, store: () => string) {
  const runs = new Map<number, RunResult[]>(sizes.map((n) => [n, []]));
  for (let r = 0; r < reps; r += 1) {
    for (const n of sizes) runs.get(n)?.push(await runOnce(variant, n, store));
  }
  return sizes.map((n) => {
    const of = (pick: (x: RunResult) => number) => median((runs.get(n) ?? []).map(pick));
    const win = (pick: (x: RunResult) => Window): Window => ({
      mean: of((x) => pick(x).mean),
      median: of((x) => pick(x).median),
    });
    return {
      n,
      totalMs: of((x) => x.totalMs),
      first: win((x) => x.first),
      last: win((x) => x.last),
      fresh: win((x) => x.fresh),
      ratio: win((x) => ({ mean: x.last.mean / x.fresh.mean, median: x.last.median / x.fresh.median })),
    };
  });
}

const FLOOR_BLOCK = 20;

/** Steps of a fresh manager in blocks alternating with the floor's writes on a store of the same kind. */
async function floorRow(variant: Variant, blocks: number, store: () => string): Promise<string[]> {
  const actions = (blocks + 1) * FLOOR_BLOCK;
  const manager = await openManager(variant, actions, store());
  const url = store();
  const floor = await openSchedulerFloor(url, modelWithAttempts(actions), variant !== "no-op");
  try {
    collect();
    const run = await alternate(stepBlock(manager, FLOOR_BLOCK), floor.block(FLOOR_BLOCK), {
      blocks,
      warmup: 1,
    });
    return [
      url.startsWith("sqlite:") ? "sqlite" : "memory",
      variant,
      fmt(blocks * FLOOR_BLOCK, 0),
      fmt(run.realMs * 1000, 1),
      fmt(run.floorMs * 1000, 1),
      fmt(run.ratio, 2),
      fmt(run.pairedRatio, 2),
    ];
  } finally {
    await manager.close();
    await floor.close();
  }
}

const pair = (w: Window) => `${fmt(w.median, 1)} / ${fmt(w.mean, 1)}`;
const verdict = (r: number) => (r <= 1.2 ? "met" : "MISSED");

/** Runs the scheduler suite and prints its tables. */
export async function runSchedulerBench(argv: readonly string[] = []): Promise<void> {
  const quick = quickMode(argv);
  const memorySizes = [100, 1_000, 10_000];
  const sqliteSizes = quick ? [100, 1_000] : [1_000, 10_000];
  const reps = quick ? 3 : 5;
  const table: string[][] = [];
  const floors: string[][] = [];
  const floorBlocks = quick ? 5 : 11;
  const scratch = scratchDir("raes-bench-scheduler-");
  let files = 0;
  const sqliteUrl = () => {
    files += 1;
    return `sqlite:${scratch.dir}/scheduler-${files}.db`;
  };
  try {
    for (const variant of ["no-op", "1 tool action"] as const) {
      // Warms the JIT, so the first measured size is not charged for compilation.
      await runOnce(variant, 2_000, () => "memory:");
      const runs = [
        ...(await measure(variant, memorySizes, reps, () => "memory:")).map((r) => ({ store: "memory", r })),
        ...(await measure(variant, sqliteSizes, 1, sqliteUrl)).map((r) => ({ store: "sqlite", r })),
      ];
      floors.push(await floorRow(variant, floorBlocks, () => "memory:"));
      floors.push(await floorRow(variant, floorBlocks, sqliteUrl));
      for (const { store, r } of runs) {
        table.push([
          store,
          variant,
          fmt(r.n, 0),
          fmt((r.n / r.totalMs) * 1000, 0),
          fmt((r.totalMs / r.n) * 1000, 1),
          pair(r.first),
          pair(r.last),
          pair(r.fresh),
          `${fmt(r.ratio.median, 2)} ${verdict(r.ratio.median)}`,
          `${fmt(r.ratio.mean, 2)} ${verdict(r.ratio.mean)}`,
        ]);
      }
    }
  } finally {
    scratch.dispose();
  }
  printTable(
    `scheduler: one due action per step; memory: median of ${reps} runs; sqlite (temp file, WAL, synchronous=FULL): 1 run`,
    [
      "store",
      "variant",
      "actions n",
      "inv/s",
      "mean µs/action",
      `first ${WINDOW} µs med/mean`,
      `last ${WINDOW} µs med/mean`,
      `fresh ${WINDOW} µs med/mean`,
      "last/fresh median",
      "last/fresh mean",
    ],
    table,
  );
  printTable(
    `scheduler / floor: µs per action, median of ${floorBlocks} blocks of ${FLOOR_BLOCK} steps alternating with ` +
      `${FLOOR_BLOCK} actions of the floor (the same store's fenced writes of a step, no scheduling), one warm-up block each`,
    [
      "store",
      "variant",
      "actions",
      "manager µs/action",
      "floor µs/action",
      "× floor",
      "× floor (paired median)",
    ],
    floors,
  );
  printNote(
    `\nlast/fresh = per-action cost at history length n over the cost at history length ${WINDOW}, ` +
      "measured step by step in alternation (goal ≤ 1.2).\n" +
      "med = median step (robust to preemption by other load and to GC pauses); mean = mean step (includes them).",
  );
}

/**
 * `npm run bench -- store`: the durable control plane on SQLite and PostgreSQL.
 *  1. port: admit→dispatch→complete per second through the real runtime port, next to the raw
 *     floor (floor.ts) measured in the same run, blocks alternated.
 *  2. history: invocations per second with 1 000 000 history events already stored vs empty.
 *  3. recovery: time of `RuntimeManager.open` recovering 10 000 interrupted invocations.
 *  4. concurrent: SQLite invocations per second and transactions per invocation at concurrency 1, 8
 *     and 32 (64 I/O-bound participants), group commit vs every write at once (concurrent.ts).
 * `--quick` (or RAES_BENCH_QUICK=1) shrinks every size; `--only=port,history,recovery,concurrent` and
 * `--backends=sqlite,postgres` pick parts; RAES_BENCH_HISTORY_EVENTS, RAES_BENCH_RECOVERY and
 * RAES_BENCH_BLOCKS (port blocks, default 12: more steady a noisy machine's median) set sizes.
 */
import { fmt, PG_URL, pgAvailable, printNote, printTable, quickMode } from "../shared/index.js";
import { CONCURRENT_COLUMNS, concurrentSection } from "./concurrent.js";
import {
  type Backend,
  historySection,
  Places,
  PORT_GOAL,
  portSection,
  recoverySection,
  type Sizes,
} from "./sections.js";

function sizesFor(quick: boolean): Sizes {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? "") || fallback;
  return {
    cyclesPerInvocation: 50,
    blocks: env("RAES_BENCH_BLOCKS", quick ? 4 : 12),
    historyEvents: env("RAES_BENCH_HISTORY_EVENTS", quick ? 100_000 : 1_000_000),
    historyBlock: quick ? 20 : 40,
    recovery: env("RAES_BENCH_RECOVERY", quick ? 1_000 : 10_000),
  };
}

/** Runs the store suite and prints its tables. */
export async function runStoreBench(argv: readonly string[] = []): Promise<void> {
  const option = (name: string) =>
    argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split("=")[1]
      ?.split(",");
  const sizes = sizesFor(quickMode(argv));
  const only = new Set(option("only") ?? ["port", "history", "recovery", "concurrent"]);
  let backends = (option("backends") ?? ["sqlite", "postgres"]) as Backend[];
  if (backends.includes("postgres") && !(await pgAvailable())) {
    printNote(`\n!!! PostgreSQL at ${PG_URL} is not reachable: every PostgreSQL figure is SKIPPED !!!`);
    backends = backends.filter((b) => b !== "postgres");
  }
  const started = performance.now();
  const places = new Places();
  const port: string[][] = [];
  const history: string[][] = [];
  const recovery: string[][] = [];
  let concurrent: string[][] = [];
  try {
    for (const b of backends) if (only.has("port")) port.push(await portSection(b, places, sizes));
    for (const b of backends) if (only.has("history")) history.push(await historySection(b, places, sizes));
    for (const b of backends)
      if (only.has("recovery")) recovery.push(await recoverySection(b, places, sizes));
    if (only.has("concurrent") && backends.includes("sqlite"))
      concurrent = await concurrentSection(places, {
        participants: 64,
        sleepMs: 2,
        concurrency: [1, 8, 32],
        blocks: sizes.blocks,
      });
  } finally {
    await places.dispose();
  }
  printTables(sizes, port, history, recovery);
  if (concurrent.length > 0)
    printTable(
      `store / concurrent (SQLite): 64 participants, one invocation each per step with one tool call after a 2 ms ` +
        `timer wait; invocations per second and committed transactions per invocation (open, carrying the ` +
        `step's clock change in the step's first, claim, dispatch, settlement, close), median of ${sizes.blocks} alternated one-step blocks, group commit vs one by one`,
      CONCURRENT_COLUMNS,
      concurrent,
    );
  printNote(`\nstore bench took ${fmt((performance.now() - started) / 1000, 1)} s`);
}

function printTables(sizes: Sizes, port: string[][], history: string[][], recovery: string[][]): void {
  printNote(
    "\nSQLite: WAL, synchronous=FULL (store and floor). PostgreSQL: synchronous_commit=on (server default).",
  );
  if (port.length > 0) {
    printTable(
      `store / port: admit→dispatch→complete cycles per second, median block; ${sizes.blocks} blocks of ` +
        `${sizes.cyclesPerInvocation} cycles (one invocation) alternated with the floor after one warm-up block each (goal: port ≥ ${PORT_GOAL.sqlite} × floor on SQLite, ≥ ${PORT_GOAL.postgres} × on PostgreSQL)`,
      [
        "store",
        "cycles",
        "floor/s",
        "port/s",
        "port/floor",
        "median block",
        "end-to-end/s",
        "e2e/floor",
        "per tool action: tx (cycle; step) / round trips (cycle; step)",
        "per 1-call invocation: tx / round trips",
      ],
      port,
    );
    printNote(
      "floor = the same tool_actions row inserted, then updated twice, by hand (same driver), one transaction per step;\n" +
        "port = timed by the harness around its cycles inside admitAction; end-to-end = whole step() calls\n" +
        "(lease, invocation open with the clock step, the cycles, close commit). Per tool action: store transactions and\n" +
        "PostgreSQL round trips in its cycle and in whole steps (floor: 3 and 3; SQLite is in-process, 0 round trips);\n" +
        "per 1-call invocation: the same, counted over steps of one invocation with one tool call, without the\n" +
        "step's lease bookkeeping (heartbeat, lease list): open carrying the clock step, claim, dispatch, complete, close.",
    );
  }
  if (history.length > 0) {
    printTable(
      `store / history: invocations per second (1 tool cycle each), median block, on a store already holding history ` +
        `(every table: an invocation and a tool action per six events, copied from a real run) vs an empty one, both vacuumed/analysed/checkpointed; ` +
        `${sizes.blocks} alternating blocks of ${sizes.historyBlock} after one warm-up block each (goal ≥ 0.8)`,
      [
        "store",
        "events stored",
        "load s",
        "invocations",
        "empty inv/s",
        "filled inv/s",
        "filled/empty",
        "median block",
        "empty inv/s ÷ floor cycles/s",
      ],
      history,
    );
  }
  if (recovery.length > 0) {
    printTable(
      "store / recovery: RuntimeManager.open on a store with interrupted invocations (one tool action each)",
      [
        "store",
        "interrupted",
        "open s",
        "ms/invocation",
        "withheld / indeterminate / succeeded",
        "still open",
        "events",
        "scheduler after",
      ],
      recovery,
    );
  }
}

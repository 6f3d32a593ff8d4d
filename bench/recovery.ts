/**
 * `npm run bench -- recovery`: `RuntimeManager.open` recovering 10³ and 10⁴ interrupted invocations
 * (one tool action each: a third admitted, a third dispatched, a third with an outcome) on SQLite and
 * PostgreSQL. Recovery consumes what it measures, so every round seeds a fresh store, reads the same
 * rows raw with the same driver (the floor: open invocations and their tool actions, no mapping), then
 * times the recovery. Reports the median round, cost per invocation (flat when reads are set-based)
 * and the ratio to the floor. `--quick` runs fewer rounds; `--sizes=1000,10000`, `--backends=...`.
 * Goals (issue #16): 10⁴ in ≤ 1 s on SQLite, ≤ 2 s on PostgreSQL.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { modelWithAttempts } from "../test/helpers/example.js";
import { fmt, median, printTable } from "./lib.js";
import { PG_URL, pgAvailable, pgSchema, quickMode, scratchDir } from "./store-harness.js";
import { seedPgInterrupted, seedSqliteInterrupted, timeRecovery } from "./store-recovery.js";

type Backend = "sqlite" | "postgres";

const MODEL = modelWithAttempts(100_000);
const GOAL_S: Record<Backend, number> = { sqlite: 1, postgres: 2 };
const OPEN_INVOCATIONS = "SELECT * FROM invocations WHERE state = 'running'";
const OPEN_ACTIONS =
  "SELECT t.* FROM invocations i JOIN tool_actions t ON t.invocation_id = i.id WHERE i.state = 'running'";

const log = (message: string) => process.stderr.write(`[recovery bench] ${message}\n`);

/** One round: the floor read and the recovery of the same freshly seeded rows. */
interface Round {
  readonly floorMs: number;
  readonly openMs: number;
  readonly settled: string;
}

async function sqliteRound(dir: string, count: number, n: number): Promise<Round> {
  const path = `${dir}/recovery-${count}-${n}.db`;
  await seedSqliteInterrupted(path, MODEL, count);
  const db = new Database(path, { readonly: true });
  const start = performance.now();
  const rows = db.prepare(OPEN_INVOCATIONS).all().length + db.prepare(OPEN_ACTIONS).all().length;
  const floorMs = performance.now() - start;
  db.close();
  if (rows !== 2 * count) throw new Error(`floor read ${rows} rows, expected ${2 * count}`);
  return finish(`sqlite:${path}`, count, floorMs);
}

async function pgRound(count: number, n: number): Promise<Round> {
  const place = pgSchema(`recovery_${count}_${n}`);
  try {
    await seedPgInterrupted(PG_URL, place.schema, MODEL, count);
    const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${place.schema}` });
    await client.connect();
    const start = performance.now();
    const rows =
      (await client.query(OPEN_INVOCATIONS)).rows.length + (await client.query(OPEN_ACTIONS)).rows.length;
    const floorMs = performance.now() - start;
    await client.end();
    if (rows !== 2 * count) throw new Error(`floor read ${rows} rows, expected ${2 * count}`);
    return await finish(place.url, count, floorMs);
  } finally {
    await place.drop();
  }
}

async function finish(url: string, count: number, floorMs: number): Promise<Round> {
  const result = await timeRecovery(url, MODEL);
  const s = result.settlements;
  const settled = `${s.withheld ?? 0} / ${s.indeterminate ?? 0} / ${s.succeeded ?? 0}`;
  if (result.stillOpen !== 0 || result.events !== 3 * count) {
    throw new Error(`recovery left ${result.stillOpen} open and wrote ${result.events} events`);
  }
  return { floorMs, openMs: result.openMs, settled };
}

/** Runs the recovery suite and prints its table. */
export async function runRecoveryBench(argv: readonly string[] = []): Promise<void> {
  const option = (name: string) =>
    argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split("=")[1]
      ?.split(",");
  const quick = quickMode(argv);
  const sizes = (option("sizes") ?? ["1000", "10000"]).map(Number);
  let backends = (option("backends") ?? ["sqlite", "postgres"]) as Backend[];
  if (backends.includes("postgres") && !(await pgAvailable())) {
    console.log(`\n!!! PostgreSQL at ${PG_URL} is not reachable: every PostgreSQL figure is SKIPPED !!!`);
    backends = backends.filter((b) => b !== "postgres");
  }
  const scratch = scratchDir("raes-bench-recovery-");
  const table: string[][] = [];
  try {
    for (const backend of backends) {
      for (const count of sizes) {
        // Fewer rounds for the large size: each seeds 10⁴ rows; one untimed warm-up round first.
        const rounds = (quick ? 1 : count >= 10_000 ? 3 : 5) + 1;
        const taken: Round[] = [];
        for (let n = 0; n < rounds; n += 1) {
          const round =
            backend === "sqlite" ? await sqliteRound(scratch.dir, count, n) : await pgRound(count, n);
          log(`${backend} ${count}: floor ${fmt(round.floorMs, 0)} ms, recovery ${fmt(round.openMs, 0)} ms`);
          if (n > 0) taken.push(round);
        }
        const openMs = median(taken.map((r) => r.openMs));
        const floorMs = median(taken.map((r) => r.floorMs));
        const goal = count === 10_000 ? (openMs / 1000 <= GOAL_S[backend] ? " met" : " MISSED") : "";
        table.push([
          backend,
          fmt(count, 0),
          String(taken.length),
          `${fmt(openMs / 1000, 2)}${goal}`,
          fmt((openMs * 1000) / count, 0),
          fmt(floorMs, 0),
          fmt((floorMs * 1000) / count, 1),
          fmt(openMs / floorMs, 1),
          taken[0]?.settled ?? "",
        ]);
      }
    }
  } finally {
    scratch.dispose();
  }
  printTable(
    "recovery: RuntimeManager.open on interrupted invocations (one tool action each), median round after one warm-up",
    [
      "store",
      "interrupted",
      "rounds",
      "open s (goal 10⁴: sqlite ≤ 1, pg ≤ 2)",
      "µs/invocation",
      "floor ms",
      "floor µs/inv",
      "open/floor",
      "withheld / indeterminate / succeeded",
    ],
    table,
  );
  console.log(
    "floor = the same open invocations and tool actions read raw with the same driver (no mapping, no writes);\n" +
      "open = the whole RuntimeManager.open: lease, three set-based reads, one fenced commit per participant.",
  );
}

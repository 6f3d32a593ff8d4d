/**
 * `npm run bench -- recovery`: `RuntimeManager.open` recovering 10³ and 10⁴ interrupted invocations
 * (one tool action each: a third admitted, a third dispatched, a third with an outcome) on SQLite and
 * PostgreSQL. Recovery consumes what it measures, so every round seeds two identical fresh stores,
 * times the recovery of one, then times the full floor on the other (floor.ts: the same raw
 * reads, then the rows that recovery wrote, written by hand in one transaction). Reports the median
 * round, cost per invocation (flat when reads are set-based), the floor and the ratio to it, and marks
 * a goal that lies under the floor. `--quick` runs fewer rounds; `--sizes=1000,10000`, `--backends=...`.
 * Goal: open ÷ floor ≤ 1.3 on both stores (a ratio to the floor of the same run holds on any machine).
 */
import { copyFileSync } from "node:fs";
import { modelWithAttempts } from "../../test/helpers/example.js";
import {
  fmt,
  median,
  PG_URL,
  pgAvailable,
  pgSchema,
  printNote,
  printTable,
  quickMode,
  scratchDir,
  seedPgInterrupted,
  seedSqliteInterrupted,
  timeRecovery,
} from "../shared/index.js";
import {
  chaining,
  type FloorTime,
  pgFloor,
  pgRecoveryWrites,
  type RecoveryWrites,
  rowCount,
  sqliteFloor,
  sqliteRecoveryWrites,
} from "./floor.js";

// The floor is the recovery bench's own, and tests check it writes what recovery wrote.
export {
  chaining,
  type FloorTime,
  pgFloor,
  pgRecoveryWrites,
  type RecoveryWrites,
  rowCount,
  sqliteFloor,
  sqliteRecoveryWrites,
} from "./floor.js";

type Backend = "sqlite" | "postgres";

const MODEL = modelWithAttempts(100_000);
/** The goal for open ÷ floor, each store. */
const GOAL_RATIO = 1.3;
const log = (message: string) => process.stderr.write(`[recovery bench] ${message}\n`);

/** One round: the recovery of freshly seeded rows, and the full floor on an identical copy. */
interface Round {
  readonly openMs: number;
  readonly floor: FloorTime;
  /** The least one-thread work beyond the floor: the events' JSON texts and chain SHA-256s (chaining). */
  readonly chainMs: number;
  readonly settled: string;
}

async function sqliteRound(dir: string, count: number, n: number): Promise<Round> {
  const path = `${dir}/recovery-${count}-${n}.db`;
  const copy = `${dir}/floor-${count}-${n}.db`;
  await seedSqliteInterrupted(path, MODEL, count);
  copyFileSync(path, copy);
  const { openMs, settled, chainMs } = await recovered(`sqlite:${path}`, count);
  const writes = sqliteRecoveryWrites(path);
  return { openMs, floor: checked(sqliteFloor(copy, writes), count, writes), chainMs, settled };
}

async function pgRound(count: number, n: number): Promise<Round> {
  const place = pgSchema(`recovery_${count}_${n}`);
  const copy = pgSchema(`recovery_floor_${count}_${n}`);
  try {
    await seedPgInterrupted(PG_URL, place.schema, MODEL, count);
    await seedPgInterrupted(PG_URL, copy.schema, MODEL, count);
    const { openMs, settled, chainMs } = await recovered(place.url, count);
    const writes = await pgRecoveryWrites(PG_URL, place.schema);
    const floor = checked(await pgFloor(PG_URL, copy.schema, writes), count, writes);
    return { openMs, floor, chainMs, settled };
  } finally {
    await place.drop();
    await copy.drop();
  }
}

/** A round's whole floor: its raw reads and its writes. */
const floorOf = (round: Round) => round.floor.readMs + round.floor.writeMs;

function checked(floor: FloorTime, count: number, writes: RecoveryWrites): FloorTime {
  if (floor.rowsRead !== 2 * count)
    throw new Error(`floor read ${floor.rowsRead} rows, expected ${2 * count}`);
  if (floor.rowsWritten !== rowCount(writes) || writes.events.length !== 3 * count) {
    throw new Error(
      `floor wrote ${floor.rowsWritten} rows of ${rowCount(writes)} (${writes.events.length} events)`,
    );
  }
  return floor;
}

async function recovered(
  url: string,
  count: number,
): Promise<{ openMs: number; settled: string; chainMs: number }> {
  const result = await timeRecovery(url, MODEL);
  const s = result.settlements;
  const settled = `${s.withheld ?? 0} / ${s.indeterminate ?? 0} / ${s.succeeded ?? 0}`;
  if (result.stillOpen !== 0 || result.events !== 3 * count) {
    throw new Error(`recovery left ${result.stillOpen} open and wrote ${result.events} events`);
  }
  return { openMs: result.openMs, settled, chainMs: chaining(result.history).ms };
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
    printNote(`\n!!! PostgreSQL at ${PG_URL} is not reachable: every PostgreSQL figure is SKIPPED !!!`);
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
          const floorMs = floorOf(round);
          log(
            `${backend} ${count}: recovery ${fmt(round.openMs, 0)} ms, floor ${fmt(floorMs, 0)} ms (reads ${fmt(round.floor.readMs, 0)}), chaining ${fmt(round.chainMs, 0)} ms`,
          );
          if (n > 0) taken.push(round);
        }
        const openMs = median(taken.map((r) => r.openMs));
        const floorMs = median(taken.map(floorOf));
        const readMs = median(taken.map((r) => r.floor.readMs));
        const ratio = openMs / floorMs;
        // Per round, then the median: each round's chaining against its own floor and open.
        const least = median(taken.map((r) => (floorOf(r) + r.chainMs) / floorOf(r)));
        const overChained = median(taken.map((r) => r.openMs / (floorOf(r) + r.chainMs)));
        table.push([
          backend,
          fmt(count, 0),
          String(taken.length),
          fmt(openMs / 1000, 2),
          fmt((openMs * 1000) / count, 0),
          fmt(floorMs / 1000, 2),
          fmt((floorMs * 1000) / count, 0),
          fmt(readMs, 0),
          `${fmt(ratio, 2)} ${ratio <= GOAL_RATIO ? "met" : "MISSED"}`,
          `${fmt(least, 2)}${backend === "sqlite" && least > GOAL_RATIO ? " (above the goal)" : ""}`,
          fmt(overChained, 2),
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
      "open s",
      "µs/invocation",
      "floor s",
      "floor µs/inv",
      "floor reads ms",
      `open/floor (goal ≤ ${GOAL_RATIO})`,
      "(floor + chaining)/floor",
      "open/(floor + chaining)",
      "withheld / indeterminate / succeeded",
    ],
    table,
  );
  printNote(
    "floor = on an identical copy, the open invocations and their tool actions read raw with the same driver,\n" +
      "then the rows this round's recovery wrote (closes, settlements, events, scheduler; same bytes, same indexes)\n" +
      "written by hand in one transaction, same durability (PostgreSQL: set-based updates, events by COPY).\n" +
      "open = the whole RuntimeManager.open: lease, three set-based reads, one fenced commit per participant.\n" +
      "chaining = each recovered event's JSON.stringify text and its SHA-256 after the previous digest, timed alone:\n" +
      "less than the chain digest the history format needs (over RFC 8785 text), and no event built or packed.\n" +
      "SQLite writes on the recovering thread, so there (floor + chaining)/floor is a ratio no recovery on one thread\n" +
      "reaches; a PostgreSQL server works beside the store, which links while the server runs: there it is no bound.",
  );
}

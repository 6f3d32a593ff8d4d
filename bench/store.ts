/**
 * `npm run bench -- store`: the durable control plane on SQLite and PostgreSQL.
 *  1. port: admit→dispatch→complete per second through the real runtime port, next to the raw
 *     floor (bench/store-floor.ts) measured in the same run, rounds interleaved.
 *  2. history: invocations per second with 1 000 000 history events already stored vs empty.
 *  3. recovery: time of `RuntimeManager.open` recovering 10 000 interrupted invocations.
 * `--quick` (or RAES_BENCH_QUICK=1) shrinks every size; `--only=port,history,recovery` and
 * `--backends=sqlite,postgres` pick parts; RAES_BENCH_HISTORY_EVENTS and RAES_BENCH_RECOVERY set sizes.
 */
import { modelWithAttempts } from "../test/helpers/example.js";
import { fmt, printTable } from "./lib.js";
import { type Floor, pgFloor, sqliteFloor } from "./store-floor.js";
import { PG_URL, pgAvailable, pgSchema, quickMode, scratchDir } from "./store-harness.js";
import { fillPgHistory, fillSqliteHistory, historyTemplates } from "./store-history.js";
import { openPortRun, type PortRun } from "./store-port.js";
import { exampleRecords } from "./store-records.js";
import { seedPgInterrupted, seedSqliteInterrupted, timeRecovery } from "./store-recovery.js";

type Backend = "sqlite" | "postgres";

interface Sizes {
  readonly cyclesPerInvocation: number;
  readonly invocationsPerRound: number;
  readonly rounds: number;
  readonly historyEvents: number;
  readonly historyInvocationsPerRound: number;
  readonly recovery: number;
}

const MODEL = modelWithAttempts(100_000);

function sizesFor(quick: boolean): Sizes {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? "") || fallback;
  return {
    cyclesPerInvocation: quick ? 50 : 100,
    invocationsPerRound: quick ? 1 : 2,
    rounds: quick ? 2 : 3,
    historyEvents: env("RAES_BENCH_HISTORY_EVENTS", quick ? 100_000 : 1_000_000),
    historyInvocationsPerRound: quick ? 30 : 100,
    recovery: env("RAES_BENCH_RECOVERY", quick ? 1_000 : 10_000),
  };
}

const log = (message: string) => process.stderr.write(`[store bench] ${message}\n`);

/** A place for one store of the backend: a fresh SQLite file or a fresh PostgreSQL schema. */
interface Place {
  readonly url: string;
  readonly path: string;
  readonly schema: string;
}

class Places {
  readonly #scratch = scratchDir("raes-bench-store-");
  readonly #schemas: (() => Promise<void>)[] = [];
  #n = 0;

  make(backend: Backend, label: string): Place {
    this.#n += 1;
    if (backend === "sqlite") {
      const path = `${this.#scratch.dir}/${label}-${this.#n}.db`;
      return { url: `sqlite:${path}`, path, schema: "" };
    }
    const schema = pgSchema(`${label}_${this.#n}`);
    this.#schemas.push(schema.drop);
    return { url: schema.url, path: "", schema: schema.schema };
  }

  async dispose(): Promise<void> {
    for (const drop of this.#schemas) await drop().catch((e) => log(`could not drop a schema: ${e}`));
    this.#scratch.dispose();
  }
}

const floorRates = new Map<Backend, number>();

async function portSection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const records = exampleRecords(MODEL);
  const floorPlace = places.make(backend, "floor");
  const floor: Floor =
    backend === "sqlite"
      ? await sqliteFloor(floorPlace.path, records)
      : await pgFloor(PG_URL, floorPlace.schema, records);
  const real: PortRun = await openPortRun(places.make(backend, "port").url, MODEL, sizes.cyclesPerInvocation);
  try {
    await floor.run(20);
    await real.round(1);
    let floorMs = 0;
    let floorCycles = 0;
    let portMs = 0;
    let stepMs = 0;
    let cycles = 0;
    for (let r = 0; r < sizes.rounds; r += 1) {
      const round = await real.round(sizes.invocationsPerRound);
      floorMs += await floor.run(round.cycles);
      floorCycles += round.cycles;
      portMs += round.portMs;
      stepMs += round.stepMs;
      cycles += round.cycles;
      log(`${backend} port round ${r + 1}/${sizes.rounds}: ${round.cycles} cycles`);
    }
    const floorRate = (floorCycles / floorMs) * 1000;
    const portRate = (cycles / portMs) * 1000;
    const endToEnd = (cycles / stepMs) * 1000;
    floorRates.set(backend, floorRate);
    return [
      backend,
      fmt(cycles, 0),
      fmt(floorRate, 0),
      fmt(portRate, 0),
      `${fmt(portRate / floorRate, 2)} ${portRate / floorRate >= 0.8 ? "met" : "MISSED"}`,
      fmt(endToEnd, 0),
      fmt(endToEnd / floorRate, 2),
    ];
  } finally {
    await real.close();
    await floor.close();
  }
}

async function historySection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const filled = places.make(backend, "history");
  const templates = await historyTemplates(MODEL);
  const fillStart = performance.now();
  const events =
    backend === "sqlite"
      ? await fillSqliteHistory(filled.path, templates, sizes.historyEvents)
      : await fillPgHistory(PG_URL, filled.schema, templates, sizes.historyEvents);
  const fillS = (performance.now() - fillStart) / 1000;
  log(`${backend} history: ${fmt(events, 0)} events loaded in ${fmt(fillS, 1)} s`);
  const empty = await openPortRun(places.make(backend, "empty").url, MODEL, 1);
  const full = await openPortRun(filled.url, MODEL, 1);
  try {
    await empty.round(10);
    await full.round(10);
    let emptyMs = 0;
    let fullMs = 0;
    let invocations = 0;
    for (let r = 0; r < sizes.rounds + 1; r += 1) {
      emptyMs += (await empty.round(sizes.historyInvocationsPerRound)).stepMs;
      fullMs += (await full.round(sizes.historyInvocationsPerRound)).stepMs;
      invocations += sizes.historyInvocationsPerRound;
    }
    const emptyRate = (invocations / emptyMs) * 1000;
    const fullRate = (invocations / fullMs) * 1000;
    const floorRate = floorRates.get(backend);
    return [
      backend,
      fmt(events, 0),
      fmt(fillS, 1),
      fmt(invocations, 0),
      fmt(emptyRate, 0),
      fmt(fullRate, 0),
      `${fmt(fullRate / emptyRate, 2)} ${fullRate / emptyRate >= 0.8 ? "met" : "MISSED"}`,
      floorRate === undefined ? "-" : fmt(emptyRate / floorRate, 2),
    ];
  } finally {
    await empty.close();
    await full.close();
  }
}

async function recoverySection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const place = places.make(backend, "recovery");
  const seedStart = performance.now();
  if (backend === "sqlite") await seedSqliteInterrupted(place.path, MODEL, sizes.recovery);
  else await seedPgInterrupted(PG_URL, place.schema, MODEL, sizes.recovery);
  log(
    `${backend} recovery: seeded ${fmt(sizes.recovery, 0)} in ${fmt((performance.now() - seedStart) / 1000, 1)} s`,
  );
  const result = await timeRecovery(place.url, MODEL);
  const s = result.settlements;
  return [
    backend,
    fmt(sizes.recovery, 0),
    fmt(result.openMs / 1000, 2),
    fmt(result.openMs / sizes.recovery, 3),
    `${s.withheld ?? 0} / ${s.indeterminate ?? 0} / ${s.succeeded ?? 0}`,
    fmt(result.stillOpen, 0),
    fmt(result.events, 0),
    result.lifecycle,
  ];
}

/** Runs the store suite and prints its tables. */
export async function runStoreBench(argv: readonly string[] = []): Promise<void> {
  const option = (name: string) =>
    argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.split("=")[1]
      ?.split(",");
  const sizes = sizesFor(quickMode(argv));
  const only = new Set(option("only") ?? ["port", "history", "recovery"]);
  let backends = (option("backends") ?? ["sqlite", "postgres"]) as Backend[];
  if (backends.includes("postgres") && !(await pgAvailable())) {
    console.log(`\n!!! PostgreSQL at ${PG_URL} is not reachable: every PostgreSQL figure is SKIPPED !!!`);
    backends = backends.filter((b) => b !== "postgres");
  }
  const started = performance.now();
  const places = new Places();
  const port: string[][] = [];
  const history: string[][] = [];
  const recovery: string[][] = [];
  try {
    for (const b of backends) if (only.has("port")) port.push(await portSection(b, places, sizes));
    for (const b of backends) if (only.has("history")) history.push(await historySection(b, places, sizes));
    for (const b of backends)
      if (only.has("recovery")) recovery.push(await recoverySection(b, places, sizes));
  } finally {
    await places.dispose();
  }
  printTables(sizes, port, history, recovery);
  console.log(`\nstore bench took ${fmt((performance.now() - started) / 1000, 1)} s`);
}

function printTables(sizes: Sizes, port: string[][], history: string[][], recovery: string[][]): void {
  console.log(
    "\nSQLite: WAL, synchronous=FULL (store and floor). PostgreSQL: synchronous_commit=on (server default).",
  );
  if (port.length > 0) {
    printTable(
      `store / port: admit→dispatch→complete cycles per second, ${sizes.cyclesPerInvocation} cycles per invocation, ` +
        `${sizes.rounds} rounds interleaved with the floor (goal: port ≥ 0.8 × floor)`,
      ["store", "cycles", "floor/s", "port/s", "port/floor", "end-to-end/s", "e2e/floor"],
      port,
    );
    console.log(
      "floor = the same tool_actions row inserted, then updated twice, by hand, one transaction per step;\n" +
        "port = timed inside admitAction around the cycles; end-to-end = whole step() calls incl. lease, clock, open and close commit.",
    );
  }
  if (history.length > 0) {
    printTable(
      "store / history: invocations per second (1 tool action each) with history already stored vs an empty store (goal ≥ 0.8)",
      [
        "store",
        "events stored",
        "load s",
        "invocations",
        "empty inv/s",
        "filled inv/s",
        "filled/empty",
        "empty inv/s ÷ floor",
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
        "scheduler",
      ],
      recovery,
    );
  }
}

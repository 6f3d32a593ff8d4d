/**
 * The three measurements of the store bench. Every comparison alternates small blocks of the two
 * sides (real and floor, filled and empty; `alternate` in bench/shared/timing.ts), so a change in machine load hits
 * both alike; each section reports the ratio of the median blocks and the median per-block ratio.
 */
import { modelWithAttempts } from "../../test/helpers/example.js";
import {
  alternate,
  type BlockTime,
  exampleRecords,
  fillPgHistory,
  fillSqliteHistory,
  fmt,
  historyTemplates,
  median,
  PG_URL,
  pgSchema,
  scratchDir,
  seedPgInterrupted,
  seedSqliteInterrupted,
  settleStore,
  timeRecovery,
} from "../shared/index.js";
import { type Floor, pgFloor, sqliteFloor } from "./floor.js";
import { openPortRun, type PortRound, type PortRun } from "./port.js";

export type Backend = "sqlite" | "postgres";

/** Sizes of one run of the store bench. */
export interface Sizes {
  /** admit→dispatch→complete cycles per invocation in the port section; also the block size. */
  readonly cyclesPerInvocation: number;
  /** Alternating blocks per comparison. */
  readonly blocks: number;
  readonly historyEvents: number;
  /** Invocations per block in the history section. */
  readonly historyBlock: number;
  readonly recovery: number;
}

const MODEL = modelWithAttempts(100_000);

export const log = (message: string) => process.stderr.write(`[store bench] ${message}\n`);

/** Fresh SQLite files in one scratch directory and fresh PostgreSQL schemas, all removed by `dispose`. */
export class Places {
  readonly #scratch = scratchDir("raes-bench-store-");
  readonly #schemas: (() => Promise<void>)[] = [];
  #n = 0;

  make(backend: Backend, label: string): { url: string; path: string; schema: string } {
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

/** The goal for the port path ÷ its floor over the whole run, each store. */
export const PORT_GOAL: Readonly<Record<Backend, number>> = { sqlite: 0.9, postgres: 0.85 };

/** A ratio against its goal, judged on the unrounded value. */
export function judged(ratio: number, atLeast: number): string {
  return `${fmt(ratio, 3)} ${ratio >= atLeast ? "met" : "MISSED"}`;
}

/** Raw floor rate per backend, from the port section, for the history table's last column. */
const floorRates = new Map<Backend, number>();

/** Port cycles next to the raw floor, alternating one invocation's cycles with as many floor cycles. */
export async function portSection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const floorPlace = places.make(backend, "floor");
  const records = exampleRecords(MODEL);
  const floor: Floor =
    backend === "sqlite"
      ? await sqliteFloor(floorPlace.path, MODEL, records)
      : await pgFloor(PG_URL, floorPlace.schema, MODEL, records);
  const real = await openPortRun(places.make(backend, "port").url, MODEL, sizes.cyclesPerInvocation);
  try {
    const stepMs: number[] = [];
    const rounds: PortRound[] = [];
    const port = async (): Promise<BlockTime> => {
      const round = await real.round(1);
      rounds.push(round);
      stepMs.push(round.stepMs / round.cycles);
      return { ms: round.portMs, units: round.cycles };
    };
    const cycles = sizes.cyclesPerInvocation;
    const raw = async (): Promise<BlockTime> => ({ ms: await floor.run(cycles), units: cycles });
    const run = await alternate(port, raw, { blocks: sizes.blocks, warmup: 1 });
    const blockTimes = run.real.map((b, i) => `${fmt(run.floor[i]?.ms ?? 0, 0)}/${fmt(b.ms, 0)}`);
    log(`${backend} port blocks, floor/port ms: ${blockTimes.join(" ")}`);
    const floorRate = 1000 / run.floorMs;
    const portRate = 1000 / run.realMs;
    const endToEnd = 1000 / median(stepMs.slice(1));
    floorRates.set(backend, floorRate);
    return [
      backend,
      fmt(
        run.real.reduce((sum, b) => sum + b.units, 0),
        0,
      ),
      fmt(floorRate, 0),
      fmt(portRate, 0),
      judged(portRate / floorRate, PORT_GOAL[backend]),
      judged(1 / run.pairedRatio, PORT_GOAL[backend]),
      fmt(endToEnd, 0),
      fmt(endToEnd / floorRate, 3),
      perToolAction(rounds, backend),
      await perOneCallInvocation(backend, places),
    ];
  } finally {
    await real.close();
    await floor.close();
  }
}

/**
 * Store transactions and PostgreSQL round trips per invocation of one tool call, counted (untimed)
 * over 20 steps of one invocation each, without the step's lease bookkeeping (heartbeat, lease list): the clock step rides in
 * the open, so open, claim, dispatch, complete and close.
 */
async function perOneCallInvocation(backend: Backend, places: Places): Promise<string> {
  const single = await openPortRun(places.make(backend, "single").url, MODEL, 1);
  try {
    await single.round(1);
    const r = await single.round(20);
    const tx = (r.transactions - r.leaseTransactions) / r.invocations;
    const trips = backend === "sqlite" ? "0" : fmt((r.roundTrips - r.leaseCalls) / r.invocations, 2);
    return `${fmt(tx, 2)} / ${trips}`;
  } finally {
    await single.close();
  }
}

/**
 * Store transactions and round trips per tool action: in the cycles (claim, dispatch, settle) and in
 * the whole steps (adding the heartbeat, clock, invocation open and close, shared by its tool actions).
 * The floor's are 3 and 3 (SQLite: 3 and none, in-process).
 */
function perToolAction(rounds: readonly PortRound[], backend: Backend): string {
  const sum = (pick: (r: PortRound) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const cycles = sum((r) => r.cycles);
  const port = sum((r) => r.toolActionTransactions) / cycles;
  const steps = sum((r) => r.transactions) / cycles;
  const trips = backend === "sqlite" ? "0" : `${fmt(port, 2)}; ${fmt(sum((r) => r.roundTrips) / cycles, 2)}`;
  return `${fmt(port, 2)}; ${fmt(steps, 2)} / ${trips}`;
}

/** Invocations with one tool cycle each on a store pre-filled with history, next to an empty one. */
export async function historySection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const filled = places.make(backend, "history");
  const templates = await historyTemplates(MODEL);
  const fillStart = performance.now();
  const events =
    backend === "sqlite"
      ? await fillSqliteHistory(filled.path, templates, sizes.historyEvents)
      : await fillPgHistory(PG_URL, filled.schema, templates, sizes.historyEvents);
  const fillS = (performance.now() - fillStart) / 1000;
  log(`${backend} history: ${fmt(events, 0)} events loaded in ${fmt(fillS, 1)} s`);
  const emptyPlace = places.make(backend, "empty");
  // Both stores settled alike (vacuumed, analysed, checkpointed) before either is timed.
  await settleStore(filled);
  await settleStore(emptyPlace);
  const empty = await openPortRun(emptyPlace.url, MODEL, 1);
  const full = await openPortRun(filled.url, MODEL, 1);
  try {
    const block = (run: PortRun) => async (): Promise<BlockTime> => ({
      ms: (await run.round(sizes.historyBlock)).stepMs,
      units: sizes.historyBlock,
    });
    // One untimed block each (warm-up): the first writes into a freshly loaded store read cold pages.
    const run = await alternate(block(full), block(empty), { blocks: sizes.blocks, warmup: 1 });
    const blockTimes = run.real.map((b, i) => `${fmt(run.floor[i]?.ms ?? 0, 0)}/${fmt(b.ms, 0)}`);
    log(`${backend} history blocks, empty/filled ms: ${blockTimes.join(" ")}`);
    const emptyRate = 1000 / run.floorMs;
    const fullRate = 1000 / run.realMs;
    const floorRate = floorRates.get(backend);
    return [
      backend,
      fmt(events, 0),
      fmt(fillS, 1),
      fmt(sizes.blocks * sizes.historyBlock, 0),
      fmt(emptyRate, 0),
      fmt(fullRate, 0),
      judged(fullRate / emptyRate, 0.8),
      judged(1 / run.pairedRatio, 0.8),
      floorRate === undefined ? "-" : fmt(emptyRate / floorRate, 3),
    ];
  } finally {
    await empty.close();
    await full.close();
  }
}

/** `RuntimeManager.open` on a store holding interrupted invocations. */
export async function recoverySection(backend: Backend, places: Places, sizes: Sizes): Promise<string[]> {
  const place = places.make(backend, "recovery");
  const seedStart = performance.now();
  if (backend === "sqlite") await seedSqliteInterrupted(place.path, MODEL, sizes.recovery);
  else await seedPgInterrupted(PG_URL, place.schema, MODEL, sizes.recovery);
  const seedS = (performance.now() - seedStart) / 1000;
  log(`${backend} recovery: seeded ${fmt(sizes.recovery, 0)} in ${fmt(seedS, 1)} s`);
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

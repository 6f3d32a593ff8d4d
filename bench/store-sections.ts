/**
 * The three measurements of the store bench. Every comparison alternates small blocks of the two
 * sides (real and floor, filled and empty), so a change in machine load hits both alike; each
 * section reports the ratio of the totals and the median of the per-block ratios.
 */
import { modelWithAttempts } from "../test/helpers/example.js";
import { fmt } from "./lib.js";
import { type Floor, pgFloor, sqliteFloor } from "./store-floor.js";
import { PG_URL, pgSchema, scratchDir } from "./store-harness.js";
import { fillPgHistory, fillSqliteHistory, historyTemplates } from "./store-history.js";
import { openPortRun } from "./store-port.js";
import { exampleRecords } from "./store-records.js";
import { seedPgInterrupted, seedSqliteInterrupted, timeRecovery } from "./store-recovery.js";

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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

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
      ? await sqliteFloor(floorPlace.path, records)
      : await pgFloor(PG_URL, floorPlace.schema, records);
  const real = await openPortRun(places.make(backend, "port").url, MODEL, sizes.cyclesPerInvocation);
  try {
    await floor.run(sizes.cyclesPerInvocation);
    await real.round(1);
    const t = { floorMs: 0, portMs: 0, stepMs: 0, cycles: 0 };
    const ratios: number[] = [];
    const blockTimes: string[] = [];
    for (let b = 0; b < sizes.blocks; b += 1) {
      const round = await real.round(1);
      const floorMs = await floor.run(round.cycles);
      t.floorMs += floorMs;
      t.portMs += round.portMs;
      t.stepMs += round.stepMs;
      t.cycles += round.cycles;
      ratios.push(floorMs / round.portMs);
      blockTimes.push(`${fmt(floorMs, 0)}/${fmt(round.portMs, 0)}`);
    }
    log(`${backend} port blocks, floor/port ms: ${blockTimes.join(" ")}`);
    const floorRate = (t.cycles / t.floorMs) * 1000;
    const portRate = (t.cycles / t.portMs) * 1000;
    const endToEnd = (t.cycles / t.stepMs) * 1000;
    floorRates.set(backend, floorRate);
    return [
      backend,
      fmt(t.cycles, 0),
      fmt(floorRate, 0),
      fmt(portRate, 0),
      judged(portRate / floorRate, 0.8),
      judged(median(ratios), 0.8),
      fmt(endToEnd, 0),
      fmt(endToEnd / floorRate, 3),
    ];
  } finally {
    await real.close();
    await floor.close();
  }
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
  const empty = await openPortRun(places.make(backend, "empty").url, MODEL, 1);
  const full = await openPortRun(filled.url, MODEL, 1);
  try {
    // One untimed block each: the first writes into a freshly loaded store read cold pages.
    await empty.round(sizes.historyBlock);
    await full.round(sizes.historyBlock);
    const t = { emptyMs: 0, fullMs: 0, invocations: 0 };
    const ratios: number[] = [];
    const blockTimes: string[] = [];
    for (let b = 0; b < sizes.blocks; b += 1) {
      const emptyMs = (await empty.round(sizes.historyBlock)).stepMs;
      const fullMs = (await full.round(sizes.historyBlock)).stepMs;
      t.emptyMs += emptyMs;
      t.fullMs += fullMs;
      t.invocations += sizes.historyBlock;
      ratios.push(emptyMs / fullMs);
      blockTimes.push(`${fmt(emptyMs, 0)}/${fmt(fullMs, 0)}`);
    }
    log(`${backend} history blocks, empty/filled ms: ${blockTimes.join(" ")}`);
    const emptyRate = (t.invocations / t.emptyMs) * 1000;
    const fullRate = (t.invocations / t.fullMs) * 1000;
    const floorRate = floorRates.get(backend);
    return [
      backend,
      fmt(events, 0),
      fmt(fillS, 1),
      fmt(t.invocations, 0),
      fmt(emptyRate, 0),
      fmt(fullRate, 0),
      judged(fullRate / emptyRate, 0.8),
      judged(median(ratios), 0.8),
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

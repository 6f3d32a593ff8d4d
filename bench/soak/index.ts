/**
 * `npm run bench -- soak`: an hours-long run in small. 1 000 participants (the example's cloned,
 * test/helpers/example.ts) each run one invocation per step with one admit→dispatch→complete tool
 * call, until 10⁵ invocations have run, on SQLite and on PostgreSQL. After every step: its wall and
 * CPU time per invocation, the RSS and heap after a full collection, and the store's size. Reports,
 * per store, whether the run stays flat:
 *   - cost: median per-invocation wall time of the last tenth's steps ÷ the first tenth's (goal ≤ 1.1);
 *   - memory: RSS at the end ÷ RSS after the first tenth (the warm-up), minus one (goal ≤ 10 %);
 *   - store: bytes added per invocation in the last tenth ÷ in the first tenth (flat: ≤ 1.1).
 * and draws cost and RSS over invocations as a PNG (plot.ts).
 * `--invocations=N` (default 100 000), `--participants=N` (default 1 000), `--concurrency=N`
 * (default 32), `--backends=sqlite,postgres` (`memory` too, to tell the runtime's growth from a store's);
 * `--quick` is `--invocations=10000`.
 */
import { statSync } from "node:fs";
import { loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import Database from "better-sqlite3";
import pg from "pg";
import { RuntimeManager } from "../../src/index.js";
import { exampleManifest, modelWithParticipants } from "../../test/helpers/example.js";
import {
  fmt,
  median,
  PG_URL,
  pgAvailable,
  pgSchema,
  printImage,
  printNote,
  printTable,
  quickMode,
  scratchDir,
} from "../shared/index.js";
import { type PlotPoint, soakPlot } from "./plot.js";
import { OneToolCallRuntime } from "./runtime.js";

type Backend = "sqlite" | "postgres" | "memory";

/** What was measured after one step. */
interface Sample {
  /** Invocations run so far, this step's included. */
  readonly invocations: number;
  readonly wallUsPerInvocation: number;
  readonly cpuUsPerInvocation: number;
  /** The system (kernel) part of it: reads and writes of the store's pages, fsyncs. */
  readonly sysUsPerInvocation: number;
  readonly rssMiB: number;
  readonly heapMiB: number;
  readonly storeBytes: number;
}

interface Sizes {
  readonly invocations: number;
  readonly participants: number;
  readonly concurrency: number;
}

const log = (message: string) => process.stderr.write(`[soak bench] ${message}\n`);

// A full collection before each memory sample, so RSS and heap say what is kept, not what is garbage.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;

/** How big the store is now, in bytes of pages in use (SQLite) or of relations with their indexes (PostgreSQL). */
interface SizeProbe {
  bytes(): Promise<number>;
  close(): Promise<void>;
}

function sqliteProbe(path: string): SizeProbe {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const pages = db.prepare<[], { n: number }>(
    "SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count) AS n",
  );
  const pageSize = (db.pragma("page_size", { simple: true }) as number) ?? 4096;
  return {
    bytes: async () => (pages.get()?.n ?? 0) * pageSize,
    close: async () => void db.close(),
  };
}

async function pgProbe(schema: string): Promise<SizeProbe> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  return {
    bytes: async () => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS n
           FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
          WHERE s.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [schema],
      );
      return Number(rows[0]?.n ?? 0);
    },
    close: () => client.end(),
  };
}

function manifestFor(participants: number, concurrency: number): Record<string, unknown> {
  const manifest = exampleManifest();
  manifest.participant_runtime.max_autonomous_participants = participants;
  manifest.participant_runtime.max_autonomous_in_flight = concurrency;
  return manifest;
}

/** One store's soak: open, then steps until the invocations have run, sampling after each. */
async function soak(
  backend: Backend,
  sizes: Sizes,
  dir: string,
): Promise<{ samples: Sample[]; openBytes: number }> {
  const steps = Math.ceil(sizes.invocations / sizes.participants);
  const place = backend === "postgres" ? pgSchema("soak") : undefined;
  const path = `${dir}/soak.db`;
  const url = place?.url ?? (backend === "memory" ? "memory:" : `sqlite:${path}`);
  const runtime = new OneToolCallRuntime();
  const started = performance.now();
  const manager = await RuntimeManager.open({
    // One more attempt than steps: the cadence's start tick runs one invocation each at open.
    model: modelWithParticipants(sizes.participants, steps + 1),
    manifest: manifestFor(sizes.participants, sizes.concurrency),
    runtime,
    store: url,
  });
  log(
    `${backend}: opened with ${sizes.participants} participants in ${fmt(performance.now() - started, 0)} ms`,
  );
  const probe =
    backend === "memory"
      ? { bytes: async () => 0, close: async () => undefined }
      : place === undefined
        ? sqliteProbe(path)
        : await pgProbe(place.schema);
  const samples: Sample[] = [];
  const openBytes = await probe.bytes();
  try {
    let invocations = 0;
    for (let s = 0; s < steps; s += 1) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      const { invocations: ran } = await manager.step(1);
      const ms = performance.now() - start;
      const cpuUs = process.cpuUsage(cpu);
      if (ran.length !== sizes.participants || ran.some((i) => i.state !== "succeeded")) {
        throw new Error(`step ${s} ran ${ran.length} invocations, not all succeeded`);
      }
      if (runtime.pending !== 0) throw new Error(`${runtime.pending} ports left attached after a step`);
      invocations += ran.length;
      collect();
      const memory = process.memoryUsage();
      samples.push({
        invocations,
        wallUsPerInvocation: (ms * 1000) / ran.length,
        cpuUsPerInvocation: (cpuUs.user + cpuUs.system) / ran.length,
        sysUsPerInvocation: cpuUs.system / ran.length,
        rssMiB: memory.rss / MiB,
        heapMiB: memory.heapUsed / MiB,
        storeBytes: await probe.bytes(),
      });
      if ((s + 1) % Math.max(1, Math.floor(steps / 20)) === 0) {
        const last = samples.at(-1);
        log(
          `${backend}: ${invocations} invocations, ${fmt(last?.wallUsPerInvocation ?? 0, 0)} µs/inv, ` +
            `RSS ${fmt(last?.rssMiB ?? 0, 0)} MiB, store ${fmt((last?.storeBytes ?? 0) / MiB, 1)} MiB, load ${fmt(loadavg()[0] ?? 0, 2)}`,
        );
      }
    }
  } finally {
    await probe.close();
    await manager.close();
    await place?.drop();
  }
  if (backend === "sqlite") log(`sqlite file: ${fmt(statSync(path).size / MiB, 1)} MiB`);
  return { samples, openBytes };
}

/** The samples split into ten consecutive tenths (by step). */
function tenths(samples: readonly Sample[]): Sample[][] {
  const out: Sample[][] = [];
  for (let t = 0; t < 10; t += 1) {
    const from = Math.floor((t * samples.length) / 10);
    const to = Math.floor(((t + 1) * samples.length) / 10);
    out.push(samples.slice(from, Math.max(to, from + 1)));
  }
  return out;
}

/** Bytes the store grew per invocation over a tenth (from the sample before it to its last). */
function bytesPerInvocation(samples: readonly Sample[], tenth: readonly Sample[], base: number): number {
  const first = tenth[0];
  const last = tenth.at(-1);
  if (first === undefined || last === undefined) return Number.NaN;
  const before = samples[samples.indexOf(first) - 1];
  const fromBytes = before?.storeBytes ?? base;
  const fromInvocations = before?.invocations ?? 0;
  return (last.storeBytes - fromBytes) / (last.invocations - fromInvocations);
}

const verdict = (ok: boolean) => (ok ? "met" : "MISSED");

function row(backend: Backend, samples: readonly Sample[], openBytes: number): string[] {
  const parts = tenths(samples);
  const first = parts[0] ?? [];
  const last = parts[9] ?? [];
  const wall = (tenth: readonly Sample[]) => median(tenth.map((s) => s.wallUsPerInvocation));
  const cpu = (tenth: readonly Sample[]) => median(tenth.map((s) => s.cpuUsPerInvocation));
  const costRatio = wall(last) / wall(first);
  const cpuRatio = cpu(last) / cpu(first);
  const sys = (tenth: readonly Sample[]) => median(tenth.map((s) => s.sysUsPerInvocation));
  const warm = first.at(-1)?.rssMiB ?? Number.NaN;
  const end = samples.at(-1)?.rssMiB ?? Number.NaN;
  const peak = Math.max(...samples.slice(first.length).map((s) => s.rssMiB));
  const growth = end / warm - 1;
  const heapWarm = first.at(-1)?.heapMiB ?? Number.NaN;
  const heapEnd = samples.at(-1)?.heapMiB ?? Number.NaN;
  const bytesFirst = bytesPerInvocation(samples, first, openBytes);
  const bytesLast = bytesPerInvocation(samples, last, openBytes);
  return [
    backend,
    fmt(samples.at(-1)?.invocations ?? 0, 0),
    `${fmt(wall(first), 0)} → ${fmt(wall(last), 0)}`,
    `${fmt(costRatio, 2)} ${verdict(costRatio <= 1.1)}`,
    `${fmt(cpu(first), 0)} → ${fmt(cpu(last), 0)} (${fmt(cpuRatio, 2)})`,
    `${fmt(sys(first), 0)} → ${fmt(sys(last), 0)}`,
    `${fmt(warm, 0)} → ${fmt(end, 0)} (peak ${fmt(peak, 0)})`,
    `${fmt(growth * 100, 1)} % ${verdict(growth <= 0.1)}`,
    `${fmt(heapWarm, 0)} → ${fmt(heapEnd, 0)}`,
    `${fmt(bytesFirst, 0)} → ${fmt(bytesLast, 0)} (${fmt(bytesLast / bytesFirst, 2)}) ${verdict(bytesLast / bytesFirst <= 1.1)}`,
    fmt((samples.at(-1)?.storeBytes ?? 0) / MiB, 1),
    fmt(loadavg()[0] ?? 0, 2),
  ];
}

/** Runs the soak suite and prints its table and plot. */
export async function runSoakBench(argv: readonly string[] = []): Promise<void> {
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const number = (name: string, otherwise: number) => Number(option(name) ?? otherwise);
  const sizes: Sizes = {
    invocations: number("invocations", quickMode(argv) ? 10_000 : 100_000),
    participants: number("participants", 1_000),
    concurrency: number("concurrency", 32),
  };
  let backends = (option("backends")?.split(",") ?? ["sqlite", "postgres"]) as Backend[];
  if (backends.includes("postgres") && !(await pgAvailable())) {
    printNote(`\n!!! PostgreSQL at ${PG_URL} is not reachable: every PostgreSQL figure is SKIPPED !!!`);
    backends = backends.filter((b) => b !== "postgres");
  }
  const rows: string[][] = [];
  const points: PlotPoint[] = [];
  for (const backend of backends) {
    const scratch = scratchDir("raes-bench-soak-");
    try {
      const { samples, openBytes } = await soak(backend, sizes, scratch.dir);
      rows.push(row(backend, samples, openBytes));
      for (const s of samples) {
        points.push({
          store: backend,
          invocations: s.invocations,
          costUs: s.wallUsPerInvocation,
          rssMiB: s.rssMiB,
        });
      }
    } finally {
      scratch.dispose();
    }
  }
  printTable(
    `soak: ${fmt(sizes.participants, 0)} participants, one invocation each per step with one tool action, ` +
      `at most ${sizes.concurrency} at once, until ${fmt(sizes.invocations, 0)} invocations; first tenth → last tenth`,
    [
      "store",
      "invocations",
      "µs/invocation (wall, median step)",
      "last/first (goal ≤ 1.1)",
      "CPU µs/invocation (last/first)",
      "of it system µs",
      "RSS MiB after warm-up → end",
      "RSS growth (goal ≤ 10 %)",
      "heap MiB",
      "store bytes/invocation (last/first)",
      "store MiB",
      "load (1 min)",
    ],
    rows,
  );
  printNote(
    "warm-up = the first tenth; RSS and heap are read after a full collection after every step.\n" +
      "store size: SQLite pages in use; PostgreSQL tables with their indexes and TOAST.",
  );
  if (points.length > 0) {
    const png = await soakPlot(
      points,
      `soak: ${fmt(sizes.participants, 0)} participants, ${fmt(sizes.invocations, 0)} invocations, one tool action each`,
    );
    printImage("soak.png", "soak: cost per invocation and RSS over invocations", png);
  }
}

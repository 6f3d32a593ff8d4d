/**
 * `npm run bench -- scale [--slots C] [--window-ms W] [--rounds R]`: 1, 2 and 4 `raes run` processes on
 * one PostgreSQL share a generated scenario of 64 participants; the harness makes one governed tool
 * call per invocation and sleeps 50 ms, with an agent pool of C slots per process (default 2), so each
 * process is I/O-bound. Per round and process count (rotated 1, 2, 4, 1, 2, 4…): a fresh schema, the
 * processes started, the window timed only once the division is stable, then invocations closed in
 * the window ÷ its length. Reports the median aggregate invocations/s, the ratios to one process, each
 * process's share, and how long after the last process opened the division became even.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { compileScenario, loadScenario } from "../../src/index.js";
import { fmt, generatedManifest, generateScenario, median, PG_URL, printTable } from "../shared/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "scale-harness.ts");
const M = 64;
const PROCESSES = [1, 2, 4] as const;

interface Options {
  readonly slots: number;
  readonly windowMs: number;
  readonly rounds: number;
}

function parse(argv: readonly string[]): Options {
  const value = (flag: string, fallback: number) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  return { slots: value("--slots", 2), windowMs: value("--window-ms", 8_000), rounds: value("--rounds", 3) };
}

/** One measured run of n processes. */
interface ScaleRun {
  readonly processes: number;
  readonly perSecond: number;
  readonly shares: readonly number[];
  /** From the last process's open to an even division. */
  readonly settleMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

function files(dir: string): { scenario: string; manifest: string } {
  const scenario = join(dir, "scale.yaml");
  writeFileSync(
    scenario,
    generateScenario(M).replace("max_action_attempts: 100\n", "max_action_attempts: 100000\n"),
  );
  const { scenario: parsed } = loadScenario(scenario);
  if (!parsed) throw new Error("the generated scenario does not load");
  const manifest = join(dir, "scale.manifest.json");
  writeFileSync(manifest, JSON.stringify(generatedManifest(compileScenario(parsed))));
  return { scenario, manifest };
}

async function runOnce(n: number, dir: string, options: Options): Promise<ScaleRun> {
  const schema = `raes_bench_scale_${process.pid}_${n}_${Date.now()}`;
  const url = new URL(PG_URL);
  url.searchParams.set("schema", schema);
  const { scenario, manifest } = files(dir);
  const args = [
    "--import",
    "tsx",
    join(ROOT, "src", "cli", "main.ts"),
    "run",
    scenario,
    "--manifest",
    manifest,
    "--runtime",
    HARNESS,
    "--store",
    url.toString(),
    "--steps",
    "1000000000",
  ];
  const env = { ...process.env, RAES_SCALE_SLEEP_MS: "50", RAES_SCALE_SLOTS: String(options.slots) };
  const children: ChildProcess[] = [];
  let lastOpen = 0;
  try {
    for (let i = 0; i < n; i += 1) {
      const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "ignore"] });
      children.push(child);
      let first = true;
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        // A joining process prints its first share line as it opens.
        if (first && d.includes("share: owns ")) {
          first = false;
          lastOpen = Math.max(lastOpen, Date.now());
        }
      });
      // The first process owns everything before the next one joins, so the others join a running one.
      if (i === 0)
        await waitFor(async () => (await owners(schema)).get("") === undefined && (await total(schema)) > 0);
    }
    const opened = () => children.length;
    await waitFor(async () => {
      const counts = [...(await owners(schema)).values()];
      return (
        counts.length === opened() &&
        counts.reduce((a, b) => a + b, 0) === M &&
        counts.every((c) => Math.abs(c - M / n) <= 1)
      );
    });
    const settleMs = Date.now() - lastOpen;
    const before = await closed(schema);
    const start = performance.now();
    await sleep(options.windowMs);
    const after = await closed(schema);
    const ms = performance.now() - start;
    const shares = [...(await owners(schema)).values()].sort((a, b) => b - a);
    return { processes: n, perSecond: ((after - before) * 1000) / ms, shares, settleMs };
  } finally {
    for (const child of children) child.kill("SIGINT");
    await Promise.all(
      children.map(
        (c) => new Promise((resolve) => (c.exitCode === null ? c.on("close", resolve) : resolve(null))),
      ),
    );
    await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

async function waitFor(check: () => Promise<boolean>, deadlineMs = 180_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error("scale bench: the processes never shared the participants evenly");
    await sleep(100);
  }
}

async function owners(schema: string): Promise<Map<string, number>> {
  const rows = await query<{ owner_id: string; n: number }>(
    `SELECT owner_id, count(*)::int AS n FROM ${schema}.leases WHERE owner_id IS NOT NULL GROUP BY owner_id`,
  );
  return new Map(rows.map((r) => [r.owner_id, r.n]));
}

async function total(schema: string): Promise<number> {
  const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.invocations`);
  return row?.n ?? 0;
}

async function closed(schema: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${schema}.invocations WHERE state <> 'running'`,
  );
  return row?.n ?? 0;
}

/** Runs the scale bench and prints its table. */
export async function runScaleBench(argv: readonly string[]): Promise<void> {
  const options = parse(argv);
  const dir = mkdtempSync(join(tmpdir(), "raes-bench-scale-"));
  const runs = new Map<number, ScaleRun[]>(PROCESSES.map((n) => [n, []]));
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      for (const n of PROCESSES) {
        const run = await runOnce(n, dir, options);
        runs.get(n)?.push(run);
        process.stderr.write(
          `round ${round + 1} ${n} process(es): ${fmt(run.perSecond, 1)} invocations/s, shares ${run.shares.join("/")}${n === 1 ? "" : `, even ${fmt(run.settleMs / 1000, 2)} s after the last open`}\n`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const one = median((runs.get(1) ?? []).map((r) => r.perSecond));
  const rows = PROCESSES.map((n) => {
    const list = runs.get(n) ?? [];
    const rate = median(list.map((r) => r.perSecond));
    const last = list.at(-1);
    const goal = n === 2 ? "≥ 1.80" : n === 4 ? "≥ 3.00" : "";
    return [
      String(n),
      fmt(rate, 1),
      fmt(rate / one, 2),
      goal,
      last ? last.shares.join("/") : "",
      n === 1 ? "" : fmt(median(list.map((r) => r.settleMs)) / 1000, 2),
    ];
  });
  printTable(
    `scale: ${M} participants on PostgreSQL, one tool action + 50 ms per invocation, ${options.slots} agent slots per process, ${options.rounds} rounds × ${options.windowMs / 1000} s windows (median)`,
    [
      "processes",
      "invocations/s",
      "× one process",
      "goal",
      "shares (last round)",
      "even after last open (s)",
    ],
    rows,
  );
}

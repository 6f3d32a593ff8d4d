/**
 * `npm run bench -- operations [COUNT] [sqlite|postgres|memory]`: `raes operations` on a store of
 * COUNT operations (default 100 000; 1000000 for a store of a million). The store is filled as a real
 * one of that size: invocations of three tool actions each across eight participants, their history
 * (three events per operation), schedulers and the clock; about 0.1 % of tool actions indeterminate.
 * It times `store.listOperations` for the queries an operator runs (bar: < 200 ms at 10⁶), then one
 * `raes operations --state indeterminate` process from the build (SQLite and PostgreSQL).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { OperationQuery } from "../../src/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { EXAMPLE, modelStartingAt } from "../../test/helpers/example.js";
import {
  builtCli,
  fmt,
  PG_URL,
  pgAvailable,
  pgSchema,
  printNote,
  printTable,
  scratchDir,
} from "../shared/index.js";
import { fillMemory, fillPg, fillSqlite, seedTemplate } from "./fill.js";

const QUERIES: readonly [string, OperationQuery][] = [
  ["--state indeterminate", { state: "indeterminate" }],
  ["(no filter)", {}],
  ["--participant P --state failed", { participantAddress: `${EXAMPLE.participant}-3`, state: "failed" }],
  ["--kind scheduler_invocation", { kind: "scheduler_invocation" }],
  [
    "--state succeeded --since 1h",
    { state: "succeeded", since: new Date(Date.now() - 3_600_000).toISOString() },
  ],
  ["--state indeterminate --limit 1000", { state: "indeterminate", limit: 1000 }],
];

const say = (line: string) => process.stderr.write(`[operations bench] ${line}\n`);

async function timeCalls(
  call: () => Promise<unknown>,
): Promise<{ first: number; median: number; max: number }> {
  const first = performance.now();
  await call();
  const cold = performance.now() - first;
  const samples: number[] = [];
  for (let i = 0; i < 15; i += 1) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { first: cold, median: samples[7] ?? cold, max: samples.at(-1) ?? cold };
}

/** Runs the bench. */
export async function runOperationsBench(argv: readonly string[]): Promise<void> {
  const count = Number(argv.find((a) => /^[0-9]+$/.test(a)) ?? 100_000);
  const backend = argv.includes("postgres") ? "postgres" : argv.includes("memory") ? "memory" : "sqlite";
  const groups = Math.max(1, Math.ceil((count - 4) / 4));
  const model = modelStartingAt(10, 1);
  const scratch = scratchDir("raes-bench-operations-");
  let url: string;
  let drop = async (): Promise<void> => undefined;
  const started = performance.now();
  if (backend === "postgres") {
    if (!(await pgAvailable())) throw new Error(`PostgreSQL at ${PG_URL} does not answer`);
    const place = pgSchema("operations");
    url = place.url;
    drop = place.drop;
    const id = await seedTemplate(model, url);
    say(`filling ${groups} invocations (${groups * 4} operations) into PostgreSQL schema ${place.schema}…`);
    await fillPg(PG_URL, place.schema, id, groups);
  } else if (backend === "sqlite") {
    url = `sqlite:${join(scratch.dir, "control-plane.db")}`;
    const id = await seedTemplate(model, url);
    say(`filling ${groups} invocations (${groups * 4} operations) into ${url}…`);
    fillSqlite(url.slice("sqlite:".length), id, groups);
  } else url = "memory:";
  const store = backend === "memory" ? await fillMemory(model, groups) : await openControlPlaneStore(url);
  try {
    const total = (await store.listOperations({ limit: 1 })).length > 0 ? groups * 4 + 4 : 0;
    say(`filled in ${fmt((performance.now() - started) / 1000, 1)} s`);
    const rows: string[][] = [];
    for (const [label, query] of QUERIES) {
      const found = (await store.listOperations(query)).length;
      const t = await timeCalls(() => store.listOperations(query));
      const verdict = t.max < 200 ? "" : "over 200 ms";
      rows.push([label, String(found), fmt(t.first), fmt(t.median), fmt(t.max), verdict]);
    }
    printTable(
      `raes operations on ${backend}, ${total.toLocaleString("en-US")} operations: store.listOperations (bar: < 200 ms)`,
      ["query", "rows", "first ms", "median ms", "max ms", "bar"],
      rows,
    );
  } finally {
    await store.close();
  }
  if (backend !== "memory") {
    const cli = builtCli();
    const run = (args: string[]) => {
      const start = performance.now();
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`raes ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
      return { ms: performance.now() - start, stdout: r.stdout };
    };
    const floor = run(["--version"]);
    const listed = run(["operations", "--state", "indeterminate", "--store", url, "--json"]);
    const rows = (JSON.parse(listed.stdout) as { operations: unknown[] }).operations.length;
    printNote(
      `\nraes operations --state indeterminate (one process, dist build): ${fmt(listed.ms, 0)} ms wall for ${rows} rows; node + raes --version alone: ${fmt(floor.ms, 0)} ms`,
    );
  }
  await drop();
  scratch.dispose();
}

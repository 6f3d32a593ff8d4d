/**
 * Where a governed `tools/call` spends its time, for `npm run bench -- gateway`: stage samples from
 * the gateway's `--log-timings` lines, the store writes the served port makes, and the raw floors (fsync, one SQLite commit) measured on the same disk.
 */
import { closeSync, fdatasyncSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ControlPlaneStore } from "../../src/index.js";

/** Named samples in milliseconds. */
export class Samples {
  readonly #series = new Map<string, number[]>();

  add(name: string, ms: number): void {
    const list = this.#series.get(name);
    if (list) list.push(ms);
    else this.#series.set(name, [ms]);
  }

  names(): string[] {
    return [...this.#series.keys()];
  }

  get(name: string): readonly number[] {
    return this.#series.get(name) ?? [];
  }

  /** Drops the first `n` samples of every series (the warm-up). */
  dropFirst(n: number): void {
    for (const [name, list] of this.#series) this.#series.set(name, list.slice(n));
  }

  clear(): void {
    this.#series.clear();
  }
}

/** The q-quantile of `samples` (nearest rank); NaN when empty. */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The gateway's stage samples from its `--log-timings` stderr lines, after the first `skip` (the warm-up). */
export function parseTimings(stderr: string, into: Samples, skip: number): void {
  const lines = stderr.split("\n").filter((line) => line.includes(" timing "));
  for (const line of lines.slice(skip)) {
    for (const [, name, value] of line.matchAll(/(\w+)=([\d.]+)/g)) into.add(name as string, Number(value));
  }
}

/** The store with its tool-action writes (one transaction each) timed. */
export function timedStore(store: ControlPlaneStore, into: () => Samples): ControlPlaneStore {
  const timedNames = new Set(["insertToolAction", "updateToolAction"]);
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      if (typeof property !== "string" || !timedNames.has(property)) return bound;
      return async (...args: unknown[]) => {
        const start = performance.now();
        try {
          return await bound(...args);
        } finally {
          const { phase } = args[0] as { phase: string };
          const name = property === "insertToolAction" ? `store insert ${phase}` : `store ${phase}`;
          into().add(name, performance.now() - start);
        }
      };
    },
  });
}

/**
 * The floors on the bench's own disk: a 4 KiB append plus fdatasync, and one SQLite commit of a
 * one-row insert with the store's settings (WAL, synchronous=FULL, BEGIN IMMEDIATE).
 */
export function rawFloors(dir: string, runs: number, out: Samples): void {
  const fd = openSync(join(dir, "fsync-floor"), "a");
  const block = Buffer.alloc(4096, 7);
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    writeSync(fd, block);
    fdatasyncSync(fd);
    out.add("fdatasync", performance.now() - start);
  }
  closeSync(fd);
  const db = new Database(join(dir, "floor.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO rows (body) VALUES (?)");
  const commit = db.transaction((body: string) => insert.run(body));
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    commit.immediate("x".repeat(600));
    out.add("sqlite commit", performance.now() - start);
  }
  db.close();
}

/**
 * CPU time a process has run so far, in milliseconds, over all its threads (Linux
 * `/proc/PID/task/TID/schedstat`, nanoseconds): what it costs, whatever the load, where wall time
 * measures the queueing too. NaN where there is no such file.
 */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

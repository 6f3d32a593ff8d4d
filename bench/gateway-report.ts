/** The report of `npm run bench -- gateway`: latencies, the stage breakdown per gateway series, the floors. */
import { quantile, type Samples } from "./gateway-stages.js";
import { fmt } from "./lib.js";

/** One series of timed calls. */
export interface Series {
  readonly label: string;
  readonly samples: number[];
  /** Gateway stages and store writes; empty for the direct series. */
  readonly stages: Samples;
}

const p50 = (samples: readonly number[]) => quantile(samples, 0.5);

/** Prints the latency table, the stage breakdown of each gateway series, and the floors. */
export function report(
  calls: number,
  storeName: string,
  sqlite: boolean,
  series: readonly Series[],
  floors: Samples,
): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const [direct, directHttp] = series;
  const governed = series.filter((row) => row.label.startsWith("gateway"));
  if (!direct || !directHttp) throw new Error("no series ran");
  const d50 = p50(direct.samples);
  const d99 = quantile(direct.samples, 0.99);
  out(
    `tools/call latency, ${calls} sequential calls per series in blocks taken in turn (each block starts one series later), store ${storeName} (ms)`,
  );
  out(`${"series".padEnd(26)}     p50      p99   added p50   added p99`);
  for (const row of series) {
    const [r50, r99] = [p50(row.samples), quantile(row.samples, 0.99)];
    const added = row === direct ? ["", ""] : [fmt(r50 - d50, 3), fmt(r99 - d99, 3)];
    out(
      `${row.label.padEnd(26)} ${fmt(r50, 3).padStart(7)} ${fmt(r99, 3).padStart(8)} ${added[0]?.padStart(11)} ${added[1]?.padStart(11)}`,
    );
  }
  const overHttp = series.find((row) => row.label === "gateway http");
  if (overHttp) {
    out(
      `gateway http over direct http (the same SDK HTTP transport, no governance): added p50 ${fmt(p50(overHttp.samples) - p50(directHttp.samples), 3)}`,
    );
  }
  out("");
  out(`${"stage breakdown, p50 (ms)".padEnd(44)}${governed.map((g) => g.label.padStart(15)).join(" ")}`);
  const rows: [string, (g: Series) => number][] = [
    ["client round trip", (g) => p50(g.samples)],
    ["  client<->gateway transport", (g) => p50(g.samples) - p50(g.stages.get("total"))],
    ["  gateway handler total", (g) => p50(g.stages.get("total"))],
    ["    admit+dispatch (port round trip)", (g) => p50(g.stages.get("admit"))],
    ["      store commit (claim, dispatched)", (g) => p50(g.stages.get("store insert dispatched"))],
    ["    upstream call", (g) => p50(g.stages.get("upstream"))],
    ["    answer -> reply", (g) => p50(g.stages.get("reply"))],
    ["  settle (port round trip, behind the reply)", (g) => p50(g.stages.get("settle"))],
    ["      store commit (settled)", (g) => p50(g.stages.get("store settled"))],
  ];
  for (const [name, value] of rows)
    out(
      `${name.padEnd(44)}${governed.map((g) => fmt(value(g), 3).padStart(Math.max(15, g.label.length))).join(" ")}`,
    );
  out("");
  const fsync = p50(floors.get("fdatasync"));
  const commit = p50(floors.get("sqlite commit"));
  out(
    `floors on this disk, same run, p50 (ms): direct upstream call ${fmt(d50, 3)}, 4 KiB write+fdatasync ${fmt(fsync, 3)}, one SQLite commit (WAL, FULL) ${fmt(commit, 3)}`,
  );
  if (!sqlite) return;
  // The claim, written already dispatched, waits for an fsync; the settlement does not
  // (src/store/sqlite/writes.ts). One commit is the least a dispatch receipt can wait for.
  out(
    `floor of a durable governed call: direct call + 1 fsynced commit (the claim, dispatched) = ${fmt(d50 + commit, 3)} ms (added ${fmt(commit, 3)}); stdio gateway p50 is ${fmt(p50(governed[0]?.samples ?? []) - d50 - commit, 3)} ms above it`,
  );
}

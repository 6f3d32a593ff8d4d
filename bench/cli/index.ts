/**
 * `npm run bench -- cli [BLOCKS]`: the cold start of the built `raes` (dist/, as the installed bin runs)
 * against a bare `node -e 0` in the same run. Each round starts one process of every side in turn
 * (node -e 0, raes --help, raes operations --help, raes operations on an empty SQLite store,
 * raes --version), after the same warm-up, so machine load hits every side alike; it reports the
 * median wall time of each side, its time above the floor, and the ratio (goal: under 200 ms wall).
 * `--against PATH` adds the same commands from another build's `cli/main.js` (e.g. one made from an
 * earlier commit), in the same rounds, for a before/after.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { openControlPlaneStore } from "../../src/store/index.js";
import { type Block, builtCli, fmt, median, printTable, rotate, scratchDir } from "../shared/index.js";

/** One block: `runs` processes of `args`, timed one by one; the block's time is their sum. */
function processBlock(args: readonly string[], runs: number): Block {
  return () => {
    let ms = 0;
    for (let i = 0; i < runs; i += 1) {
      const start = performance.now();
      const r = spawnSync(process.execPath, args, { encoding: "utf8" });
      ms += performance.now() - start;
      if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    }
    return { ms, units: runs };
  };
}

/** Runs the bench. */
export async function runCliBench(argv: readonly string[]): Promise<void> {
  const blocks = Number(argv.find((a) => /^[0-9]+$/.test(a)) ?? 10);
  const cli = builtCli();
  const scratch = scratchDir("raes-bench-cli-");
  const store = `sqlite:${join(scratch.dir, "control-plane.db")}`;
  await (await openControlPlaneStore(store)).close();
  const against = argv[argv.indexOf("--against") + 1];
  const builds: [string, string][] = [["", cli]];
  if (argv.includes("--against") && against !== undefined) builds.push([" (--against)", against]);
  const sides: [string, readonly string[]][] = [["node -e 0 (floor)", ["-e", "0"]]];
  for (const [tag, main] of builds) {
    sides.push(
      [`raes --version${tag}`, [main, "--version"]],
      [`raes --help${tag}`, [main, "--help"]],
      [`raes operations --help${tag}`, [main, "operations", "--help"]],
    );
    // Another build may not know this build's schema, so only this build lists a store.
    if (tag === "")
      sides.push(["raes operations (empty SQLite store)", [main, "operations", "--store", store]]);
  }
  try {
    const timed = await rotate(
      sides.map(([, args]) => processBlock(args, 3)),
      { blocks, warmup: 1 },
    );
    const medians = timed.map((b) => median(b.map((t) => t.ms / t.units)));
    const floor = medians[0] ?? Number.NaN;
    printTable(
      `raes cold start, dist build, ${blocks} rounds of 3 processes per side (median wall ms per process)`,
      ["case", "processes", "median ms", "above floor ms", "× floor", "goal < 200 ms"],
      sides.map(([label], i) => {
        const ms = medians[i] ?? Number.NaN;
        return [
          label,
          String(blocks * 3),
          fmt(ms, 1),
          i === 0 ? "-" : fmt(ms - floor, 1),
          fmt(ms / floor, 2),
          i === 0 ? "" : ms < 200 ? "met" : "missed",
        ];
      }),
    );
  } finally {
    scratch.dispose();
  }
}

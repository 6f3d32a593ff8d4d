/**
 * The store bench's concurrent section: SQLite group commit under concurrent I/O-bound invocations.
 * 64 participants (the example's cloned, test/helpers/example.ts) each run one invocation per step
 * with one admit→dispatch→complete tool call after a short timer wait (an agent waiting on its
 * model); a step runs them at concurrency 1, 8 and 32. The same workload runs on two stores, one with
 * group commit and one committing every write at once, in alternated blocks (one step each), half of
 * them with each side first.
 */
import { loadavg } from "node:os";
import { RuntimeManager } from "../../src/index.js";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { exampleManifest, modelWithParticipants } from "../../test/helpers/example.js";
import { SleepingToolRuntime } from "../../test/helpers/sleeping-tool-runtime.js";
import { type BlockTime, fmt, median, rotate } from "../shared/index.js";
import type { Places } from "./sections.js";

/** Sizes of the concurrent section. */
export interface ConcurrentSizes {
  readonly participants: number;
  readonly sleepMs: number;
  readonly concurrency: readonly number[];
  readonly blocks: number;
}

export const CONCURRENT_COLUMNS = [
  "concurrency",
  "grouped inv/s",
  "one-by-one inv/s",
  "grouped/one-by-one",
  "tx/inv grouped",
  "tx/inv one-by-one",
  "load (1 min)",
];

interface Side {
  readonly block: (concurrency: number) => Promise<Timed>;
  close(): Promise<void>;
}

async function openSide(places: Places, sizes: ConcurrentSizes, groupCommit: boolean): Promise<Side> {
  const { url, path } = places.make("sqlite", groupCommit ? "grouped" : "one-by-one");
  const store = SqliteControlPlaneStore.open(url, path, { groupCommit });
  const manifest = exampleManifest();
  manifest.participant_runtime.max_autonomous_participants = sizes.participants;
  manifest.participant_runtime.max_autonomous_in_flight = sizes.participants;
  const manager = await RuntimeManager.open({
    model: modelWithParticipants(sizes.participants, 100_000),
    manifest,
    runtime: new SleepingToolRuntime(sizes.sleepMs),
    store,
  });
  return {
    block: async (concurrency) => {
      const commits = store.commits;
      const start = performance.now();
      const { invocations } = await manager.step(1, { concurrency });
      const ms = performance.now() - start;
      if (invocations.length !== sizes.participants || invocations.some((i) => i.state !== "succeeded"))
        throw new Error(`a step ran ${invocations.length} invocations, not all succeeded`);
      return { ms, units: invocations.length, commits: store.commits - commits };
    },
    close: async () => {
      await manager.close();
      await store.close();
    },
  };
}

type Timed = BlockTime & { commits: number };

/**
 * `blocks` alternated blocks of each side, half of them with the other side first: the side run
 * first in a pair measured slower by itself (a first-runner bias seen when the sides were swapped).
 */
async function bothOrders(
  a: Side,
  b: Side,
  concurrency: number,
  blocks: number,
): Promise<[Timed[], Timed[]]> {
  const half = Math.max(1, Math.floor(blocks / 2));
  const [a1 = [], b1 = []] = await rotate(
    [a, b].map((side) => () => side.block(concurrency)),
    { blocks: half },
  );
  const [b2 = [], a2 = []] = await rotate(
    [b, a].map((side) => () => side.block(concurrency)),
    {
      blocks: blocks - half,
      warmup: 0,
    },
  );
  return [
    [...a1, ...a2],
    [...b1, ...b2],
  ] as [Timed[], Timed[]];
}

/** One row per concurrency: invocations per second and transactions per invocation, grouped vs one by one. */
export async function concurrentSection(places: Places, sizes: ConcurrentSizes): Promise<string[][]> {
  const grouped = await openSide(places, sizes, true);
  const oneByOne = await openSide(places, sizes, false);
  const rows: string[][] = [];
  try {
    for (const concurrency of sizes.concurrency) {
      const [g, o] = await bothOrders(grouped, oneByOne, concurrency, sizes.blocks);
      const rate = (blocks: readonly BlockTime[]) => 1000 / median(blocks.map((b) => b.ms / b.units));
      const perInvocation = (blocks: readonly Timed[]) => median(blocks.map((b) => b.commits / b.units));
      rows.push([
        String(concurrency),
        fmt(rate(g), 0),
        fmt(rate(o), 0),
        fmt(rate(g) / rate(o), 2),
        fmt(perInvocation(g), 2),
        fmt(perInvocation(o), 2),
        fmt(loadavg()[0] ?? 0, 2),
      ]);
    }
  } finally {
    await grouped.close();
    await oneByOne.close();
  }
  return rows;
}

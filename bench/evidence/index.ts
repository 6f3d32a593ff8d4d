/**
 * `npm run bench -- evidence`: what the history chain costs. Closes of six events each (the golden
 * history's first tool triple and outer triple, with fresh ids) are committed through the real
 * SQLite store (WAL, synchronous FULL) in timed blocks; alternated with each block, the same events'
 * chain work alone (RFC 8785 text, SHA-256, as `ChainLinker` does it) is timed in the same process.
 * "Without chaining" is the close time less its chain work: the ratio with ÷ without is
 * `(close - chain) / close` per close, goal ≥ 0.9. `--quick` shrinks the blocks.
 * `bench/evidence/verify-scale.ts` measures `raes verify` at 10⁶ events (run it by itself).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HistoryEvent, HistoryEventDraft } from "../../src/records/index.js";
import { ChainLinker } from "../../src/store/chain.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, scheduler } from "../../test/store/records.js";
import { fmt, printNote, printTable, quickMode, scratchDir } from "../shared/index.js";

const GOLDEN = readFileSync(
  join(import.meta.dirname, "..", "..", "test", "fixtures", "golden", "history-v1.jsonl"),
  "utf8",
)
  .split("\n")
  .filter(Boolean)
  .map((line) => {
    const { sequence: _s, chain_digest: _c, ...draft } = JSON.parse(line) as HistoryEvent;
    return draft as HistoryEventDraft;
  });

/** Six events of a close: one tool triple and the outer triple of the golden history. */
function closeEvents(n: number): HistoryEventDraft[] {
  return [...GOLDEN.slice(0, 3), ...GOLDEN.slice(-3)].map((e) => ({
    ...e,
    event_id: `${e.event_id}#${n}`,
    action_instance_id: `${e.action_instance_id}#${n}`,
  }));
}

/** Runs the evidence suite and prints its table. */
export async function runEvidenceBench(argv: readonly string[] = []): Promise<void> {
  const quick = quickMode(argv);
  const blocks = quick ? 4 : 10;
  const perBlock = quick ? 20 : 50;
  const scratch = scratchDir("raes-bench-evidence-");
  const dir = scratch.dir;
  const store = await openControlPlaneStore(`sqlite:${join(dir, "store.db")}`);
  let n = 0;
  const closeTimes: number[] = [];
  const chainTimes: number[] = [];
  try {
    for (let b = 0; b < blocks + 1; b += 1) {
      const closes = Array.from({ length: perBlock }, () => {
        n += 1;
        return { inv: invocation({ id: `inv-${n}`, ordinal: n }), events: closeEvents(n) };
      });
      for (const { inv } of closes)
        await store.openInvocation(inv, scheduler({ nextOrdinal: inv.ordinal + 1 }));
      let started = performance.now();
      for (const { inv, events } of closes) await store.commitInvocation({ ...closeCommit(inv), events });
      const close = (performance.now() - started) / perBlock;
      const linker = new ChainLinker(() => undefined);
      started = performance.now();
      let sequence = 0;
      for (const { events } of closes) for (const e of events) linker.link({ ...e, sequence: ++sequence });
      const chain = (performance.now() - started) / perBlock;
      // The first block warms up both.
      if (b > 0) {
        closeTimes.push(close);
        chainTimes.push(chain);
      }
    }
  } finally {
    await store.close();
    scratch.dispose();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const ratios = closeTimes.map((c, i) => (c - (chainTimes[i] ?? 0)) / c);
  const ratio = median(ratios);
  printTable(
    `evidence / chaining cost: SQLite closes of 6 events (WAL, synchronous FULL), ${blocks} blocks of ${perBlock}, chain work timed alongside (goal ≥ 0.9)`,
    ["close ms (with chain)", "chain ms per close", "µs per event chained", "with ÷ without"],
    [
      [
        fmt(median(closeTimes), 2),
        fmt(median(chainTimes), 3),
        fmt((median(chainTimes) * 1000) / 6, 1),
        `${fmt(ratio, 3)} ${ratio >= 0.9 ? "met" : "NOT MET"}`,
      ],
    ],
  );
  printNote("`npx tsx bench/evidence/verify-scale.ts` measures raes verify at 10⁶ events.");
}

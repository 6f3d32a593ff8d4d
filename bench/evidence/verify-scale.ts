/**
 * `npx tsx bench/evidence/verify-scale.ts [EVENTS]`: the time and memory of `raes verify` over a SQLite
 * store holding EVENTS chained events (default 1 000 000). The store is filled fast: the golden
 * history's events, copied with fresh ids over 10 participants, chained and packed as the store
 * writes them, bulk-inserted in one transaction. Then the store is verified as `raes verify` does
 * (`verifyStore`); with `--both`, a tenth of the size first, so the figures show the time per event
 * staying flat (linear) and the memory staying bounded.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { verifyStore } from "../../src/evidence/index.js";
import type { HistoryEvent, HistoryEventDraft } from "../../src/records/index.js";
import { ChainLinker } from "../../src/store/chain.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { packBody } from "../../src/store/sqlite/packed-body.js";

const ROOT = join(import.meta.dirname, "..", "..");
const GOLDEN = readFileSync(join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => {
    const { sequence: _s, chain_digest: _c, ...draft } = JSON.parse(line) as HistoryEvent;
    return draft as HistoryEventDraft;
  });

async function fill(file: string, events: number): Promise<number> {
  const store = await openControlPlaneStore(`sqlite:${file}`);
  await store.close();
  const db = new Database(file);
  const started = performance.now();
  const insert = db.prepare(
    "INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const heads = db.prepare(
    "INSERT INTO history_chains (participant_address, scenario_digest, manifest_digest, head_digest, head_sequence, events, backfilled_at) VALUES (@participant_address, @scenario_digest, @manifest_digest, @head_digest, @head_sequence, @events, @backfilled_at)",
  );
  const chains = new ChainLinker(() => undefined);
  db.transaction(() => {
    for (let sequence = 1; sequence <= events; sequence += 1) {
      const template = GOLDEN[(sequence - 1) % GOLDEN.length] as HistoryEventDraft;
      const copy = Math.floor((sequence - 1) / GOLDEN.length);
      const draft: HistoryEventDraft = {
        ...template,
        participant_address: `${template.participant_address}-${copy % 10}`,
        action_instance_id: `${template.action_instance_id}#${copy}`,
        event_id: `${template.event_id}#${copy}`,
      };
      const digest = chains.link({ ...draft, sequence });
      insert.run(
        sequence,
        draft.participant_address,
        draft.episode_id,
        draft.action_instance_id,
        packBody(draft, draft),
        digest,
      );
    }
    for (const head of chains.heads()) heads.run(head);
  })();
  db.close();
  return (performance.now() - started) / 1000;
}

async function measure(events: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "raes-verify-scale-"));
  try {
    const file = join(dir, "store.db");
    const fillS = await fill(file, events);
    console.log(`events ${events.toLocaleString("en")} | filled in ${fillS.toFixed(1)} s`);
    const store = await openControlPlaneStore(`sqlite:${file}`);
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 50);
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    const report = await verifyStore(store);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    await store.close();
    if (!report.ok) throw new Error(`the filled store does not verify: ${JSON.stringify(report.failure)}`);
    console.log(
      [
        `events ${events.toLocaleString("en")}`,
        `fill ${fillS.toFixed(1)} s`,
        `verify ${seconds.toFixed(1)} s`,
        `${((seconds * 1e6) / events).toFixed(1)} µs/event`,
        `heap before ${(before / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB`,
      ].join(" | "),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const events = Number(process.argv[2] ?? "") || 1_000_000;
// `--both` first measures a tenth of the size, to show the time per event staying flat.
if (process.argv.includes("--both")) await measure(Math.max(1, Math.floor(events / 10)));
await measure(events);

/**
 * `tsx scripts/history-fixture.ts FILE [COUNT] [--chained]`: a SQLite store at FILE holding about
 * COUNT history events (default 100 000), one real invocation's six events, invocation and tool
 * action copied with fresh ids, for measuring the read commands (docs/hardening.md). The copies are
 * not chained, so `raes verify` stops at the first event; `--chained` then links every event's
 * `chain_digest` and records the heads, as a store that wrote them would, so the history verifies.
 * Prints the event count.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { fillSqliteHistory, historyTemplates } from "../bench/shared/index.js";
import { ChainLinker } from "../src/store/chain.js";
import { CHAIN_COLUMNS } from "../src/store/sql/index.js";
import { type EventRow, historyEvent } from "../src/store/sqlite/rows.js";
import { modelWithAttempts } from "../test/helpers/example.js";

const args = process.argv.slice(2);
const chained = args.includes("--chained");
const [file, count = "100000"] = args.filter((a) => a !== "--chained");
if (!file || !/^[0-9]{1,8}$/.test(count)) {
  process.stderr.write("usage: tsx scripts/history-fixture.ts FILE [COUNT] [--chained]\n");
  process.exit(2);
}
const path = resolve(file);
if (existsSync(path)) {
  process.stderr.write(`${path} exists; give a new file\n`);
  process.exit(2);
}
const events = await fillSqliteHistory(
  path,
  await historyTemplates(modelWithAttempts(1_000_000)),
  Number(count),
);
if (chained) chain(path);
process.stdout.write(`${events} events in sqlite:${path}${chained ? ", chained" : ""}\n`);

/** Links every event's chain digest in commit order, a page at a time, and writes the heads. */
function chain(at: string): void {
  const db = new Database(at);
  try {
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    const page = db.prepare<[number], EventRow>(
      `SELECT sequence, participant_address, episode_id, action_instance_id, body FROM history_events
       WHERE sequence > ? ORDER BY sequence LIMIT 5000`,
    );
    const set = db.prepare<[string, number]>("UPDATE history_events SET chain_digest = ? WHERE sequence = ?");
    const linker = new ChainLinker(() => undefined);
    db.transaction(() => {
      for (let after = 0; ; ) {
        const rows = page.all(after);
        if (rows.length === 0) break;
        for (const row of rows) {
          set.run(linker.link(historyEvent(row)), row.sequence);
          after = row.sequence;
        }
      }
      db.exec("DELETE FROM history_chains");
      const insert = db.prepare(
        `INSERT INTO history_chains (${CHAIN_COLUMNS.join(", ")}) VALUES (${CHAIN_COLUMNS.map((c) => `@${c}`).join(", ")})`,
      );
      for (const head of linker.heads()) insert.run(head);
    })();
    db.pragma("journal_mode = WAL");
  } finally {
    db.close();
  }
}

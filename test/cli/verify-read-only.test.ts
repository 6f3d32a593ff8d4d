import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/sqlite/schema.js";
import { ROOT } from "../helpers/example.js";
import { raes } from "./cli.js";

/** The golden history's events without their chain digests, as a store before chaining wrote them. */
const DRAFTS = readFileSync(join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => {
    const { sequence: _s, chain_digest: _c, ...draft } = JSON.parse(line) as Record<string, unknown>;
    return draft as { participant_address: string; episode_id: string; action_instance_id: string };
  });

/** A store as a raes-ts at schema step `version` (before 13) left it, holding the golden history. */
function oldStore(file: string, version: number): void {
  const old = new Database(file);
  old.exec(
    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
    old.exec(migration.sql);
    old
      .prepare("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01')")
      .run(migration.version, migration.name);
  }
  const insert = old.prepare(
    "INSERT INTO history_events (participant_address, episode_id, action_instance_id, body) VALUES (?, ?, ?, ?)",
  );
  for (const d of DRAFTS)
    insert.run(d.participant_address, d.episode_id, d.action_instance_id, JSON.stringify(d));
  old.close();
}

function schemaVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number }).v;
  } finally {
    db.close();
  }
}

describe("raes verify never writes the store it audits", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-verify-read-only-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a store written before history chains with a code and how to chain it, leaving the file byte for byte", async () => {
    const file = join(dir, "step-12.db");
    oldStore(file, 12);
    const before = readFileSync(file);
    const run = await raes(["verify", "--store", `sqlite:${file}`]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /^raes: cli\.store-unchained: .*schema step 13.* operations --store sqlite:/m);
    assert.equal(run.stdout, "");
    assert.deepEqual(readFileSync(file), before, "the store file is unchanged");
    assert.equal(schemaVersion(file), 12, "not migrated");
    assert.deepEqual(readdirSync(dir).sort(), ["step-12.db"], "no journal or WAL file left beside it");
    // As the message says: opened once with write access, it is chained, and then it verifies.
    const chained = await raes(["operations", "--store", `sqlite:${file}`]);
    assert.equal(chained.code, 0, chained.stderr);
    assert.equal(schemaVersion(file), SCHEMA_VERSION);
    const verified = await raes(["verify", "--store", `sqlite:${file}`]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(
      verified.stdout,
      /every chain intact \(1 chain computed by the schema step over older history\)/,
    );
  });

  it("verifies a current store without changing its file", async () => {
    const file = join(dir, "current.db");
    oldStore(file, 12);
    assert.equal((await raes(["operations", "--store", `sqlite:${file}`])).code, 0);
    const db = new Database(file);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    const before = readFileSync(file);
    const run = await raes(["verify", "--store", `sqlite:${file}`]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(readFileSync(file), before);
  });
});

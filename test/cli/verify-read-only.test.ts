import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { openControlPlaneStore, StoreUnavailableError } from "../../src/store/index.js";
import { MIGRATIONS as PG_MIGRATIONS } from "../../src/store/postgres/schema.js";
import { SCHEMA_VERSION } from "../../src/store/sqlite/schema.js";
import { ROOT } from "../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";
import { sqliteAtStep } from "../store/sqlite-at-step.js";
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
  const old = sqliteAtStep(file, version, "2026-01-01");
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

  it("raes export refuses a store written before history chains as verify does, leaving it unmigrated", async () => {
    const file = join(dir, "export-12.db");
    oldStore(file, 12);
    const before = readFileSync(file);
    const run = await raes(["export", "--store", `sqlite:${file}`, "--bundle", join(dir, "b.jsonl")]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /^raes: cli\.store-unchained: .*schema step 13.* operations --store sqlite:/m);
    assert.deepEqual(readFileSync(file), before, "the store file is unchanged");
    assert.equal(schemaVersion(file), 12, "not migrated");
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith("export-12") || f.startsWith("b.jsonl")),
      ["export-12.db"],
    );
  });

  it("fails a store at a chained schema step whose chains were emptied, naming what is missing, not as unchained", async () => {
    const file = join(dir, "emptied.db");
    oldStore(file, 12);
    assert.equal((await raes(["operations", "--store", `sqlite:${file}`])).code, 0);
    const db = new Database(file);
    db.exec("DELETE FROM history_chains; UPDATE history_events SET chain_digest = NULL");
    db.close();
    const run = await raes(["verify", "--store", `sqlite:${file}`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stderr, /store-unchained/);
    assert.match(
      run.stdout,
      /chain broken: unchained event: .*sequence 1: the event carries no chain_digest/,
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

/** A PostgreSQL schema as a raes-ts at schema step `version` (before 13) left it, holding the golden history. */
async function oldSchema(schema: string, version: number): Promise<void> {
  const steps = PG_MIGRATIONS.filter((m) => m.version <= version);
  await adminQuery(`CREATE SCHEMA ${schema}`);
  await adminQuery(`SET search_path TO ${schema};
    CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
    ${steps.map((m) => m.sql).join(";\n")};`);
  for (const m of steps)
    await adminQuery(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [
      m.version,
      m.name,
    ]);
  for (const [i, d] of DRAFTS.entries())
    await adminQuery(
      `INSERT INTO ${schema}.history_events (sequence, participant_address, episode_id, action_instance_id, body) VALUES ($1, $2, $3, $4, $5)`,
      [i + 1, d.participant_address, d.episode_id, d.action_instance_id, JSON.stringify(d)],
    );
  await adminQuery(`UPDATE ${schema}.history_head SET last_sequence = $1`, [DRAFTS.length]);
}

/** What a migration or any write would change: the schema's steps, relations, functions and history rows. */
async function schemaState(schema: string): Promise<unknown> {
  return {
    steps: await adminQuery(
      `SELECT version, name, applied_at::text FROM ${schema}.schema_migrations ORDER BY version`,
    ),
    relations: await adminQuery(
      "SELECT relname, relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = $1 ORDER BY relname",
      [schema],
    ),
    columns: await adminQuery(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name",
      [schema],
    ),
    functions: await adminQuery(
      "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE nspname = $1 ORDER BY proname",
      [schema],
    ),
    history: await adminQuery(
      `SELECT md5(string_agg(sequence || ':' || body::text, ',' ORDER BY sequence)) AS digest FROM ${schema}.history_events`,
    ),
    head: await adminQuery(`SELECT last_sequence FROM ${schema}.history_head`),
  };
}

describe("raes verify never writes or migrates the PostgreSQL store it audits", async () => {
  if (!(await postgresAvailable("raes verify read-only PostgreSQL tests"))) return;
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });

  it("refuses a schema written before history chains with the same code, leaving every step, table and row as it was", async () => {
    const { schema, url, drop } = freshSchema("raes_verify_ro");
    drops.push(drop);
    await oldSchema(schema, 12);
    const before = await schemaState(schema);
    const run = await raes(["verify", "--store", url]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: cli\.store-unchained: .*schema step 13.* operations --store '?postgres:/m,
    );
    assert.equal(run.stdout, "");
    assert.deepEqual(await schemaState(schema), before, "not migrated, nothing written");
    // As the message says: opened once with write access, it is chained, and then it verifies.
    const chained = await raes(["operations", "--store", url]);
    assert.equal(chained.code, 0, chained.stderr);
    const [latest] = await adminQuery<{ v: number }>(
      `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
    );
    assert.equal(latest?.v, SCHEMA_VERSION);
    const verified = await raes(["verify", "--store", url]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(
      verified.stdout,
      /every chain intact \(1 chain computed by the schema step over older history\)/,
    );
    const current = await schemaState(schema);
    assert.equal((await raes(["verify", "--store", url])).code, 0);
    assert.deepEqual(await schemaState(schema), current, "verifying a current schema changes nothing");
  });

  it("fails a schema at a chained step whose chains were emptied, naming what is missing, not as unchained", async () => {
    const { schema, url, drop } = freshSchema("raes_verify_ro");
    drops.push(drop);
    await oldSchema(schema, 12);
    assert.equal((await raes(["operations", "--store", url])).code, 0);
    await adminQuery(
      `DELETE FROM ${schema}.history_chains; UPDATE ${schema}.history_events SET chain_digest = NULL`,
    );
    const run = await raes(["verify", "--store", url]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stderr, /store-unchained/);
    assert.match(
      run.stdout,
      /chain broken: unchained event: .*sequence 1: the event carries no chain_digest/,
    );
  });

  it("a store opened read-only refuses every write in the server, and a missing schema is not created", async () => {
    const { schema, url, drop } = freshSchema("raes_verify_ro");
    drops.push(drop);
    await oldSchema(schema, 12);
    const store = await openControlPlaneStore(url, { readOnly: true });
    try {
      const clock = {
        clockAddress: "clock",
        segment: 0,
        tick: 0,
        generation: 0,
        paused: false,
        updatedAt: "t",
      };
      await assert.rejects(store.saveClock(clock), StoreUnavailableError);
    } finally {
      await store.close();
    }
    const missing = freshSchema("raes_verify_ro");
    drops.push(missing.drop);
    await assert.rejects(openControlPlaneStore(missing.url, { readOnly: true }), /no store at/);
    const [found] = await adminQuery<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1",
      [missing.schema],
    );
    assert.equal(found?.n, 0);
  });
});

import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import type { TestContext } from "node:test";
import pg from "pg";
import { isCi } from "../helpers/ci.js";

/** The test server: env RAES_TEST_POSTGRES_URL, else database `test` on 127.0.0.1:5432 as PGUSER or the OS user. */
export const POSTGRES_TEST_URL =
  process.env.RAES_TEST_POSTGRES_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER ?? userInfo().username)}@127.0.0.1:5432/test`;

/** Why the test server cannot be used, or undefined when it answers. */
export async function postgresUnavailableReason(url = POSTGRES_TEST_URL): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    return message || code || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * True when PostgreSQL tests can run. Otherwise prints a loud `POSTGRES UNAVAILABLE: skipping` line
 * and returns false, or throws when env RAES_REQUIRE_POSTGRES=1 or CI is set (CI must not skip).
 */
export async function postgresAvailable(label: string): Promise<boolean> {
  const reason = await postgresUnavailableReason();
  if (reason === undefined) return true;
  const where = `(${POSTGRES_TEST_URL}: ${reason})`;
  if (process.env.RAES_REQUIRE_POSTGRES === "1" || isCi()) {
    throw new Error(
      `POSTGRES UNAVAILABLE: cannot run ${label} ${where}, and RAES_REQUIRE_POSTGRES=1 or CI forbids skipping`,
    );
  }
  const message = `POSTGRES UNAVAILABLE: skipping ${label} ${where}`;
  console.error(`\n${"!".repeat(72)}\n${message}\n${"!".repeat(72)}\n`);
  return false;
}

/** A fresh, unique schema on the test server: its store URL and a `drop` that removes it. */
export function freshSchema(prefix = "raes_test"): {
  schema: string;
  url: string;
  drop: () => Promise<void>;
} {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  const url = new URL(POSTGRES_TEST_URL);
  url.searchParams.set("schema", schema);
  return { schema, url: url.toString(), drop: () => dropSchema(schema) };
}

/**
 * Runs `work` with the URL of a fresh schema and drops the schema after; skips the test (as
 * `postgresAvailable` says) when PostgreSQL cannot be reached.
 */
export async function inFreshSchema(
  t: TestContext,
  label: string,
  prefix: string,
  work: (url: string) => Promise<void>,
): Promise<void> {
  if (!(await postgresAvailable(label))) {
    t.skip("POSTGRES UNAVAILABLE");
    return;
  }
  const place = freshSchema(prefix);
  try {
    await work(place.url);
  } finally {
    await place.drop();
  }
}

/**
 * Drops a test schema and everything in it. A backend of a process the test killed can still be
 * finishing its last statement; when the drop and that statement lock the schema's tables in opposite
 * orders, PostgreSQL picks one of them as a deadlock victim. The drop is then tried again once that
 * statement is over.
 */
export async function dropSchema(schema: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "40P01" || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** Runs one statement on the test server through its own short-lived connection. */
export async function adminQuery<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A just-migrated schema's rows, table by table, and the order that empties its tables without breaking a reference. */
interface MigratedRows {
  readonly emptyOrder: readonly string[];
  readonly rows: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * Schemas for many short cases that each need a fresh store. Creating and migrating a schema is
 * DDL, which is most of a PostgreSQL contract case's time; a schema released by a finished case is
 * instead emptied back to the rows its migration left (sequences restarted) and handed out again.
 * The first schema is migrated by the store itself and read for those rows before its first use.
 */
export class SchemaPool {
  readonly #free: { schema: string; url: string }[] = [];
  readonly #drops: (() => Promise<void>)[] = [];
  #migrated: MigratedRows | undefined;

  /** A schema as a fresh one would be after the store's first open (migrated, or about to be). */
  async take(migrate: (url: string) => Promise<void>): Promise<{ url: string; release: () => void }> {
    let entry = this.#free.pop();
    if (entry === undefined) {
      const { schema, url, drop } = freshSchema();
      this.#drops.push(drop);
      entry = { schema, url };
      if (this.#migrated === undefined) {
        await migrate(url);
        this.#migrated = await readMigratedRows(schema);
      }
    } else {
      await emptyToMigrated(entry.schema, this.#migrated as MigratedRows);
    }
    const taken = entry;
    return { url: taken.url, release: () => this.#free.push(taken) };
  }

  /** Drops every schema the pool created. */
  async drop(): Promise<void> {
    for (const drop of this.#drops) await drop();
  }
}

async function readMigratedRows(schema: string): Promise<MigratedRows> {
  const tables = await adminQuery<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
    [schema],
  );
  const references = await adminQuery<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE k.contype = 'f' AND n.nspname = $1`,
    [schema],
  );
  // A table is emptied before every table it references.
  const emptyOrder: string[] = [];
  const pending = new Set(tables.map((t) => t.name));
  while (pending.size > 0) {
    const next = [...pending].find(
      (name) => !references.some((r) => r.parent === name && r.child !== name && pending.has(r.child)),
    );
    if (next === undefined) throw new Error(`circular references among ${[...pending].join(", ")}`);
    emptyOrder.push(next);
    pending.delete(next);
  }
  const rows = new Map<string, unknown[]>();
  for (const name of emptyOrder) {
    const found = await adminQuery(`SELECT * FROM ${schema}.${name}`);
    if (found.length > 0) rows.set(name, found);
  }
  return { emptyOrder, rows };
}

/** One statement list, sent in one round trip: empty every table, put the migration's rows back, restart the sequences. */
async function emptyToMigrated(schema: string, migrated: MigratedRows): Promise<void> {
  const inserts = [...migrated.rows]
    .reverse()
    .map(
      ([name, rows]) =>
        `INSERT INTO ${schema}.${name} SELECT * FROM json_populate_recordset(NULL::${schema}.${name}, ${pg.escapeLiteral(JSON.stringify(rows))});`,
    );
  await adminQuery(
    [
      "BEGIN;",
      ...migrated.emptyOrder.map((name) => `DELETE FROM ${schema}.${name};`),
      ...inserts,
      `SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, start_value, false) FROM pg_sequences WHERE schemaname = ${pg.escapeLiteral(schema)};`,
      "COMMIT;",
    ].join("\n"),
  );
}

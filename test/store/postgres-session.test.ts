import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { migrate } from "../../src/store/postgres/schema.js";
import { assertSessionSettings, clientTimeout, withSearchPath } from "../../src/store/postgres/store.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "./pg-available.js";

test("every store connection plans its prepared statements generically, beside the URL's own options and the schema", () => {
  const url = "postgres://u:p@127.0.0.1:5432/test?options=-c%20work_mem%3D4MB&application_name=x";
  const { connectionString, options } = withSearchPath(url, "raes_s");
  assert.equal(
    options,
    "-c work_mem=4MB -c search_path=raes_s -c plan_cache_mode=force_generic_plan -c default_transaction_isolation=read\\ committed -c jit=off",
  );
  assert.equal(new URL(connectionString).searchParams.get("options"), null);
  assert.equal(new URL(connectionString).searchParams.get("application_name"), "x");
  assert.equal(
    withSearchPath("postgres://127.0.0.1/test", undefined).options,
    "-c plan_cache_mode=force_generic_plan -c default_transaction_isolation=read\\ committed -c jit=off",
  );
});

test("a store connection compiles no statement with JIT: the commit's generic plan would cross its thresholds", async (t) => {
  if (!(await postgresAvailable("postgres jit off"))) return t.skip("POSTGRES UNAVAILABLE");
  const client = new pg.Client(withSearchPath(POSTGRES_TEST_URL, undefined));
  await client.connect();
  try {
    const { rows } = await client.query("SHOW jit");
    assert.equal(rows[0]?.jit, "off");
  } finally {
    await client.end();
  }
});

test("a statement limit of 0 is none on the server, whatever the URL or role says, and none in the client", async (t) => {
  assert.deepEqual(clientTimeout(0), {});
  assert.deepEqual(clientTimeout(10_000), { query_timeout: 15_000 });
  const limits = { statementMs: 0, idleMs: 10_000 };
  assert.match(
    withSearchPath("postgres://127.0.0.1/test", undefined, limits).options,
    / -c statement_timeout=0 -c idle_in_transaction_session_timeout=10000$/,
  );
  if (!(await postgresAvailable("postgres statement limit 0"))) return t.skip("POSTGRES UNAVAILABLE");
  // The driver sends no statement_timeout of 0 itself: a URL's (or role's) limit would then apply.
  const url = new URL(POSTGRES_TEST_URL);
  url.searchParams.set("options", "-c statement_timeout=150");
  const client = new pg.Client(withSearchPath(url.toString(), undefined, limits));
  await client.connect();
  try {
    const { rows } = await client.query("SHOW statement_timeout");
    assert.equal(rows[0]?.statement_timeout, "0");
    await client.query("SELECT pg_sleep(0.3)");
  } finally {
    await client.end();
  }
});

test("a store's transaction left idle (its process died between two statements) is ended by the server", async (t) => {
  assert.match(
    withSearchPath("postgres://127.0.0.1/test", undefined, { statementMs: 2_000, idleMs: 12_000 }).options,
    / -c idle_in_transaction_session_timeout=12000$/,
  );
  if (!(await postgresAvailable("postgres idle transactions"))) return t.skip("POSTGRES UNAVAILABLE");
  const { url, drop } = freshSchema();
  const store = await openControlPlaneStore(url, { statementTimeoutMs: 2_000 });
  const client = new pg.Client(withSearchPath(url, undefined, { statementMs: 2_000, idleMs: 10_000 }));
  await client.connect();
  client.on("error", () => undefined);
  try {
    const { rows } = await client.query("SHOW idle_in_transaction_session_timeout");
    assert.equal(rows[0]?.idle_in_transaction_session_timeout, "10s");
    await client.query("SET idle_in_transaction_session_timeout = 200");
    await client.query("BEGIN");
    await new Promise((resolve) => setTimeout(resolve, 600));
    await assert.rejects(client.query("SELECT 1"));
  } finally {
    await client.end().catch(() => undefined);
    await store.close();
    await drop();
  }
});

test("every store connection runs at read committed, whatever the role or server default", async (t) => {
  if (!(await postgresAvailable("postgres isolation"))) return t.skip("POSTGRES UNAVAILABLE");
  const { url, drop } = freshSchema();
  await adminQuery(`CREATE SCHEMA IF NOT EXISTS ${new URL(url).searchParams.get("schema")}`);
  const serializable = new URL(url);
  serializable.searchParams.set("options", "-c default_transaction_isolation=serializable");
  const store = await openControlPlaneStore(serializable.toString());
  try {
    const client = new pg.Client(withSearchPath(serializable.toString(), undefined));
    await client.connect();
    try {
      const { rows } = await client.query("SELECT current_setting('transaction_isolation') AS level");
      assert.equal(rows[0]?.level, "read committed");
      // A connection whose startup options were dropped (a pooler) is refused, naming the level.
      await client.query("SET default_transaction_isolation = 'repeatable read'");
      await assert.rejects(
        assertSessionSettings(client as unknown as pg.PoolClient, undefined),
        (error: Error) => error instanceof StoreUnavailableError && /repeatable read/.test(error.message),
      );
      // And one that lost its search_path would reach another schema's tables.
      await client.query("SET default_transaction_isolation = 'read committed'");
      await client.query("SET search_path = public");
      await assert.rejects(
        assertSessionSettings(client as unknown as pg.PoolClient, "raes_elsewhere"),
        (error: Error) =>
          error instanceof StoreUnavailableError && /search_path is public/.test(error.message),
      );
    } finally {
      await client.end();
    }
  } finally {
    await store.close();
    await drop();
  }
});

test("migrations run at read committed even on a session that defaults to repeatable read", async (t) => {
  if (!(await postgresAvailable("postgres migrate isolation"))) return t.skip("POSTGRES UNAVAILABLE");
  const { schema, drop } = freshSchema();
  const clients = [new pg.Client(POSTGRES_TEST_URL), new pg.Client(POSTGRES_TEST_URL)];
  try {
    for (const client of clients) {
      await client.connect();
      await client.query("SET default_transaction_isolation = 'repeatable read'");
    }
    // Concurrent: the second waits on the first's advisory lock; at repeatable read its snapshot
    // would predate the first's commit and it would apply migration 1 again.
    const results = await Promise.allSettled(
      clients.map((c) => migrate(c as unknown as pg.PoolClient, schema)),
    );
    assert.deepEqual(
      results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok")),
      ["ok", "ok"],
    );
  } finally {
    for (const client of clients) await client.end().catch(() => undefined);
    await drop();
  }
});

test("a store at this code's step opens without migrating: another process's migration lock does not hold it up", async (t) => {
  if (!(await postgresAvailable("postgres open current"))) return t.skip("POSTGRES UNAVAILABLE");
  const { schema, url, drop } = freshSchema();
  await (await openControlPlaneStore(url)).close();
  const migrator = new pg.Client(POSTGRES_TEST_URL);
  await migrator.connect();
  try {
    // Any migration takes this transaction-level lock first (src/store/postgres/schema.ts).
    await migrator.query("BEGIN");
    await migrator.query("SELECT pg_advisory_xact_lock($1)", [0x7261_6573]);
    const opened = await openControlPlaneStore(url, { statementTimeoutMs: 2000 }).then(
      async (store) => {
        await store.close();
        return "opened";
      },
      (error: unknown) => String(error),
    );
    assert.equal(opened, "opened", `schema ${schema}`);
  } finally {
    await migrator.query("ROLLBACK").catch(() => undefined);
    await migrator.end();
    await drop();
  }
});

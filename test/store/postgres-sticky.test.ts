import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pg from "pg";
import { StickyPool } from "../../src/store/postgres/sticky.js";
import { POSTGRES_TEST_URL, postgresAvailable } from "./pg-available.js";

const available = await postgresAvailable("postgres kept connection");

const PID = { text: "SELECT pg_backend_pid() AS pid" };
const SLOW_PID = { text: "SELECT pg_backend_pid() AS pid, pg_sleep(0.05)" };

async function pidOf(db: StickyPool, config: { text: string } = PID): Promise<number> {
  const { rows } = await db.query<{ pid: number }>(config);
  return Number(rows[0]?.pid);
}

/** Runs `body` with a StickyPool over a fresh pool of four connections, both ended after. */
async function withSticky(body: (db: StickyPool, pool: pg.Pool) => Promise<void>): Promise<void> {
  const pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, max: 4 });
  const db = new StickyPool(pool);
  try {
    await body(db, pool);
  } finally {
    db.release();
    await pool.end();
  }
}

if (!available) {
  it("postgres kept connection", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  describe("postgres: the kept connection (StickyPool)", () => {
    it("runs statements one after another on one connection, concurrent ones on others", async () => {
      await withSticky(async (db) => {
        const first = await pidOf(db);
        assert.equal(await pidOf(db), first);
        const pids = await Promise.all([pidOf(db, SLOW_PID), pidOf(db, SLOW_PID), pidOf(db, SLOW_PID)]);
        assert.equal(pids[0], first, "the first finds the kept connection idle");
        assert.equal(new Set(pids).size, 3, "the others run on pooled connections at the same time");
      });
    });

    it("replaces the kept connection after a failed statement, as the pool would", async () => {
      await withSticky(async (db) => {
        const before = await pidOf(db);
        await assert.rejects(db.query({ text: "SELECT 1 / 0" }), /division by zero/);
        const after = await pidOf(db);
        assert.notEqual(after, before);
        assert.equal(await pidOf(db), after);
      });
    });

    it("lends the idle kept connection to a transaction rather than opening another", async () => {
      await withSticky(async (db, pool) => {
        const kept = await pidOf(db);
        assert.equal(pool.totalCount, 1);
        const client = await db.connect();
        try {
          const { rows } = await client.query<{ pid: number }>(PID);
          assert.equal(Number(rows[0]?.pid), kept, "the transaction runs on the connection the pool had");
          assert.equal(pool.totalCount, 1, "no second connection was opened");
          assert.notEqual(await pidOf(db), kept, "a statement meanwhile takes another connection");
        } finally {
          client.release();
        }
      });
    });

    it("leaves no listener behind on a connection it lent and kept again, however often", async () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, max: 4 });
      const db = new StickyPool(pool);
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on("warning", onWarning);
      try {
        let kept = 0;
        for (let round = 0; round < 15; round += 1) {
          kept = await pidOf(db);
          const client = await db.connect();
          client.release();
        }
        assert.equal(pool.totalCount, 1, "one connection, kept and lent in turn");
        const client = await pool.connect();
        try {
          const { rows } = await client.query<{ pid: number }>(PID);
          assert.equal(Number(rows[0]?.pid), kept);
          // The pool's own idle listener was taken off at checkout: none of the kept ones is left.
          assert.equal(client.listenerCount("error"), 0);
        } finally {
          client.release();
        }
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(
          warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message),
          [],
        );
      } finally {
        process.off("warning", onWarning);
        db.release();
        await pool.end();
      }
    });

    it("keeps its connection when the pool has an idle one for the transaction", async () => {
      await withSticky(async (db) => {
        await Promise.all([pidOf(db, SLOW_PID), pidOf(db, SLOW_PID)]);
        const kept = await pidOf(db);
        const client = await db.connect();
        try {
          const { rows } = await client.query<{ pid: number }>(PID);
          assert.notEqual(Number(rows[0]?.pid), kept, "the pool's idle connection serves the transaction");
          assert.equal(await pidOf(db), kept, "the kept connection still serves statements");
        } finally {
          client.release();
        }
      });
    });

    it("gives the kept connection back on release, even while a statement runs on it", async () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, max: 4 });
      const db = new StickyPool(pool);
      await pidOf(db);
      const running = pidOf(db, SLOW_PID);
      db.release();
      assert.ok((await running) > 0);
      assert.equal(pool.totalCount - pool.idleCount, 0, "no connection is left checked out");
      await pool.end();
    });
  });
}

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { chainDigest, chainGenesis, UNANCHORED } from "../../src/records/index.js";
import { LeaseLostError, StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/postgres/schema.js";
import type { ControlPlaneStore } from "../../src/store/types.js";
import { reopenable, runStoreContract } from "./contract.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable, SchemaPool } from "./pg-available.js";
import {
  assertSchedulerUpgraded,
  clock,
  closeCommit,
  invocation,
  P1,
  scheduler,
  toolAction,
} from "./records.js";
import { assertTimesUpgraded, step4RowsSql } from "./upgrade-times.js";

/** Polls (no deadline assertion) until a backend with this application_name waits on a lock. */
/** Two stores on a fresh schema, told apart in pg_stat_activity, and an admin connection to hold rows. */
async function withTakeoverRig(
  body: (rig: {
    schema: string;
    owner: ControlPlaneStore;
    rival: ControlPlaneStore;
    admin: pg.Client;
  }) => Promise<void>,
): Promise<void> {
  const { schema, url, drop } = freshSchema();
  dropAtEnd.push(drop);
  const owner = await openControlPlaneStore(`${url}&application_name=${schema}_a`);
  const rival = await openControlPlaneStore(`${url}&application_name=${schema}_b`);
  const admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await admin.connect();
  try {
    await body({ schema, owner, rival, admin });
  } finally {
    await admin.end();
    await owner.close();
    await rival.close();
  }
}

async function waitForLock(applicationName: string): Promise<void> {
  for (let poll = 0; poll < 2_000; poll++) {
    // A fresh connection each time: pg_stat_activity is frozen for the rest of a transaction.
    const rows = await adminQuery(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [applicationName],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no backend of ${applicationName} ever waited on a lock`);
}

const available = await postgresAvailable("postgres store contract");
const dropAtEnd: (() => Promise<void>)[] = [];
after(async () => {
  for (const drop of dropAtEnd) await drop();
});

if (!available) {
  it("postgres store contract", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  const schemas = new SchemaPool();
  dropAtEnd.push(() => schemas.drop());
  runStoreContract("postgres", async () => {
    const { url, release } = await schemas.take(async (fresh) => {
      await (await openControlPlaneStore(fresh)).close();
    });
    return reopenable(() => openControlPlaneStore(url), release);
  });

  describe("postgres store specifics", () => {
    it("creates its schema, records one migration per version, and migrates once under concurrent opens", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const stores = await Promise.all([1, 2, 3].map(() => openControlPlaneStore(url)));
      await Promise.all(stores.map((s) => s.close()));
      const versions = await adminQuery(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => ({ version: m.version })),
      );
    });

    it("upgrades a schema left at version 1 and keeps its rows, chaining its events once and recording it", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      await adminQuery(`CREATE SCHEMA ${schema}`);
      await adminQuery(`SET search_path TO ${schema};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        ${MIGRATIONS[0]?.sql}
        INSERT INTO schema_migrations (version, name) VALUES (1, 'control plane');
        INSERT INTO history_events VALUES (1, '${P1}', 'episode-1', 'inv-old', '{"participant_address":"${P1}"}');
        UPDATE history_head SET last_sequence = 1;`);
      const store = await openControlPlaneStore(url);
      try {
        const written = { participant_address: P1, sequence: 1 };
        const digest = chainDigest(chainGenesis(P1, UNANCHORED), written);
        assert.deepEqual(await store.listEvents({ participantAddress: P1 }), [
          { ...written, chain_digest: digest },
        ]);
        const [head] = await store.listChainHeads();
        assert.equal(head?.head_digest, digest);
        assert.match(
          head?.backfilled_at ?? "",
          /^\d{4}-\d\d-\d\dT/,
          "the chain records the step that computed it",
        );
      } finally {
        await store.close();
      }
      const [latest] = await adminQuery<{ v: number }>(
        `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
      );
      assert.equal(latest?.v, SCHEMA_VERSION);
    });

    it("upgrades a schema left at version 2 and keeps its schedulers, watermark at 0", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      await adminQuery(`CREATE SCHEMA ${schema}`);
      const v2 = MIGRATIONS.filter((m) => m.version <= 2);
      const saved = scheduler({ attempts: 2, nextOrdinal: 4, cursor: 1 });
      await adminQuery(`SET search_path TO ${schema};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        ${v2.map((m) => m.sql).join("\n")}
        ${v2.map((m) => `INSERT INTO schema_migrations (version, name) VALUES (${m.version}, '${m.name}');`).join("\n")}
        INSERT INTO schedulers (participant_address, policy_address, lifecycle, stop_reason, next_ordinal, attempts, cursor, updated_at)
          VALUES ('${P1}', '${saved.policyAddress}', '${saved.lifecycle}', NULL, 4, 2, 1, '${saved.updatedAt}');`);
      await assertSchedulerUpgraded(await openControlPlaneStore(url), saved);
      const [latest] = await adminQuery<{ v: number }>(
        `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
      );
      assert.equal(latest?.v, SCHEMA_VERSION);
    });

    it("upgrades a schema left at version 4: record times from the rows' created_at and updated_at", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      await adminQuery(`CREATE SCHEMA ${schema}`);
      const v4 = MIGRATIONS.filter((m) => m.version <= 4);
      await adminQuery(`SET search_path TO ${schema};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        ${v4.map((m) => m.sql).join("\n")}
        ${v4.map((m) => `INSERT INTO schema_migrations (version, name) VALUES (${m.version}, '${m.name}');`).join("\n")}
        ${step4RowsSql()}`);
      await assertTimesUpgraded(await openControlPlaneStore(url));
    });

    it("refuses to open a schema newer than this code", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      await (await openControlPlaneStore(url)).close();
      await adminQuery(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, 'future')`, [
        SCHEMA_VERSION + 1,
      ]);
      await assert.rejects(
        openControlPlaneStore(url),
        (error: unknown) => error instanceof StoreUnavailableError && /newer/.test(error.message),
      );
    });

    it("keeps the URL's own startup options alongside the schema", async () => {
      const { url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const store = await openControlPlaneStore(
        `${url}&options=${encodeURIComponent("-c lock_timeout=5000")}`,
      );
      try {
        await store.saveClock(clock());
        assert.deepEqual(await store.getClock(clock().clockAddress), clock());
      } finally {
        await store.close();
      }
    });

    it("makes a takeover wait for the old owner's in-flight fenced write", async () => {
      await withTakeoverRig(async ({ schema, owner, rival, admin }) => {
        const lease = await owner.acquireLease(P1, "host-a", 0);
        assert.ok(lease);
        const fence = { participantAddress: P1, token: lease.token };
        const inv = invocation();
        await owner.openInvocation(inv, scheduler({ attempts: 1 }), fence);
        await admin.query("BEGIN");
        await admin.query(`SELECT * FROM ${schema}.history_head FOR UPDATE`);
        const commit = owner.commitInvocation(closeCommit(inv), fence);
        await waitForLock(`${schema}_a`);
        const takeover = rival.acquireLease(P1, "host-b", 60_000);
        await waitForLock(`${schema}_b`);
        await admin.query("ROLLBACK");
        await commit;
        const taken = await takeover;
        assert.ok(taken && taken.token > lease.token);
        assert.equal((await owner.getInvocation(inv.id))?.state, "succeeded");
        await assert.rejects(owner.saveScheduler(scheduler(), fence), LeaseLostError);
      });
    });

    it("makes a takeover wait for the old owner's in-flight claim and settlement (plain guarded statements)", async () => {
      await withTakeoverRig(async ({ schema, owner, rival, admin }) => {
        /** Holds `lockSql`'s row while `write` runs into it, then checks that a takeover waited for the write. */
        const heldUp = async (lockSql: string, write: () => Promise<unknown>, token: number) => {
          await admin.query("BEGIN");
          await admin.query(lockSql);
          const written = write();
          await waitForLock(`${schema}_a`);
          const takeover = rival.acquireLease(P1, "host-b", 0);
          await waitForLock(`${schema}_b`);
          await admin.query("ROLLBACK");
          const result = await written;
          const taken = await takeover;
          assert.ok(taken && taken.token > token);
          return result;
        };
        const lease = await owner.acquireLease(P1, "host-a", 0);
        assert.ok(lease);
        const inv = invocation();
        await owner.openInvocation(inv, scheduler({ attempts: 1 }), {
          participantAddress: P1,
          token: lease.token,
        });
        const action = toolAction(inv, 1, { phase: "dispatched" });
        // The claim's foreign key check waits for the invocation row, after the fence's row lock.
        await heldUp(
          `SELECT 1 FROM ${schema}.invocations WHERE id = '${inv.id}' FOR UPDATE`,
          () => owner.insertToolAction(action, { participantAddress: P1, token: lease.token }),
          lease.token,
        );
        const again = await owner.acquireLease(P1, "host-a", 0);
        assert.ok(again);
        const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
        const wrote = await heldUp(
          `SELECT 1 FROM ${schema}.tool_actions WHERE id = '${action.id}' FOR UPDATE`,
          () => owner.updateToolAction(settled, "dispatched", { participantAddress: P1, token: again.token }),
          again.token,
        );
        assert.equal(wrote, true);
        assert.deepEqual(await owner.getToolAction(action.id), settled);
      });
    });

    it("expires leases by the database clock", async () => {
      const { url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const store = await openControlPlaneStore(url, { now: () => 0 });
      try {
        const [before] = await adminQuery<{ ms: string }>(
          "SELECT (extract(epoch FROM now()) * 1000)::bigint AS ms",
        );
        const lease = await store.acquireLease(P1, "host-a", 30_000);
        const [afterward] = await adminQuery<{ ms: string }>(
          "SELECT (extract(epoch FROM now()) * 1000)::bigint AS ms",
        );
        assert.ok(lease && before && afterward);
        assert.ok(lease.expiresAt >= Number(before.ms) + 30_000);
        assert.ok(lease.expiresAt <= Number(afterward.ms) + 30_000);
      } finally {
        await store.close();
      }
    });

    it("rejects opening an unreachable server with StoreUnavailableError", async () => {
      await assert.rejects(
        openControlPlaneStore("postgres://127.0.0.1:1/test", { connectTimeoutMs: 2_000 }),
        (error: unknown) => error instanceof StoreUnavailableError && /127\.0\.0\.1:1/.test(error.message),
      );
    });
  });
}

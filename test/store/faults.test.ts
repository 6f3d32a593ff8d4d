import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import type { ControlPlaneStore, InvocationRecord, ToolActionRecord } from "../../src/store/index.js";
import { StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "./pg-available.js";
import { clock, closeCommit, invocation, P1, scheduler, toolAction } from "./records.js";

/** An open invocation with one dispatched tool action: the state every fault must leave untouched. */
const DECIDED = {
  kind: "resolve" as const,
  subject: "a",
  operator: "alice",
  note: "n",
  decided_at: "2025-02-01T00:00:00.000000Z",
};

async function seed(store: ControlPlaneStore): Promise<{ inv: InvocationRecord; action: ToolActionRecord }> {
  const inv = invocation();
  const action = toolAction(inv, 1, { phase: "dispatched" });
  await store.openInvocation(inv, scheduler({ attempts: 1 }));
  await store.insertToolAction(action);
  return { inv, action };
}

/** Every write method, aimed at the seeded state. */
function everyWrite(store: ControlPlaneStore, inv: InvocationRecord, action: ToolActionRecord) {
  const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
  return {
    saveClock: () => store.saveClock(clock()),
    saveScheduler: () => store.saveScheduler(scheduler({ cursor: 7 })),
    openInvocation: () => store.openInvocation(invocation({ id: "inv-z" }), scheduler({ attempts: 2 })),
    insertToolAction: () => store.insertToolAction(toolAction(inv, 2)),
    updateToolAction: () => store.updateToolAction(settled, "dispatched"),
    commitInvocation: () => store.commitInvocation(closeCommit(inv, [settled])),
    recordResolution: () =>
      store.recordResolution(
        action.id,
        {
          resolution: "effect_absent",
          note: "n",
          resolvedAt: "2025-02-01T00:00:00Z",
        },
        DECIDED,
      ),
    recordDecision: () => store.recordDecision({ ...DECIDED, kind: "resume", subject: P1 }, [scheduler()]),
    acquireLease: () => store.acquireLease(P1, "host-a", 1_000),
  };
}

/** Asserts the seeded state is exactly as seeded: no write landed, not even part of one. */
async function assertUntouched(store: ControlPlaneStore, inv: InvocationRecord, action: ToolActionRecord) {
  assert.deepEqual(await store.getInvocation(inv.id), inv);
  assert.deepEqual(await store.listToolActions({}), [action]);
  assert.deepEqual(await store.getScheduler(P1, inv.policyAddress), scheduler({ attempts: 1 }));
  assert.deepEqual(await store.listSchedulers(), [scheduler({ attempts: 1 })]);
  assert.deepEqual(await store.listEvents(), []);
  assert.equal(await store.getClock("clock:shared"), undefined);
  assert.equal(await store.getInvocation("inv-z"), undefined);
}

/** Asserts the store is back: a full close commits. */
async function assertWritable(store: ControlPlaneStore, inv: InvocationRecord, action: ToolActionRecord) {
  const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
  assert.equal(await store.updateToolAction(settled, "dispatched"), true);
  await store.commitInvocation(closeCommit(inv, [settled]));
  assert.equal((await store.getInvocation(inv.id))?.state, "succeeded");
  assert.deepEqual(
    (await store.listEvents()).map((e) => e.sequence),
    [1, 2, 3],
  );
}

describe("sqlite store faults", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-faults-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses every write on a file made read-only (chmod 0444), keeps reads, and writes again once writable", async () => {
    const file = join(dir, "chmod.db");
    const url = `sqlite:${file}`;
    const writable = await openControlPlaneStore(url);
    const { inv, action } = await seed(writable);
    await writable.close();
    chmodSync(file, 0o444);
    const frozen = await openControlPlaneStore(url);
    for (const [name, write] of Object.entries(everyWrite(frozen, inv, action))) {
      await assert.rejects(write(), StoreUnavailableError, name);
    }
    await assertUntouched(frozen, inv, action);
    assert.equal((await frozen.getOperation(action.id))?.state, "running");
    await frozen.close();
    chmodSync(file, 0o644);
    const thawed = await openControlPlaneStore(url);
    await assertWritable(thawed, inv, action);
    await thawed.close();
  });

  it("refuses writes while another process holds the write lock, then recovers on the same store", async () => {
    const file = join(dir, "locked.db");
    const store = await openControlPlaneStore(`sqlite:${file}`, { busyTimeoutMs: 20 });
    const { inv, action } = await seed(store);
    const other = new Database(file);
    other.exec("BEGIN EXCLUSIVE");
    for (const [name, write] of Object.entries(everyWrite(store, inv, action))) {
      await assert.rejects(write(), StoreUnavailableError, name);
    }
    await assertUntouched(store, inv, action);
    other.exec("ROLLBACK");
    other.close();
    await assertWritable(store, inv, action);
    await store.close();
  });

  it("refuses writes with the read-only open flag and reads the same data", async () => {
    const file = join(dir, "flag.db");
    const writable = await openControlPlaneStore(`sqlite:${file}`);
    const { inv, action } = await seed(writable);
    const reader = await openControlPlaneStore(`sqlite:${file}`, { readOnly: true });
    for (const [name, write] of Object.entries(everyWrite(reader, inv, action))) {
      await assert.rejects(write(), StoreUnavailableError, name);
    }
    await assertUntouched(reader, inv, action);
    await assertWritable(writable, inv, action);
    assert.deepEqual(await reader.listEvents(), await writable.listEvents());
    await reader.close();
    await writable.close();
  });
});

const postgres = await postgresAvailable("postgres store faults");

describe("postgres store faults", { skip: postgres ? false : "POSTGRES UNAVAILABLE" }, () => {
  const drops: (() => Promise<void>)[] = [];
  // Every store a test opens, closed here too: a test that fails before its own close must not leave
  // a pool connection that keeps this file's process alive after its last test.
  const stores: ControlPlaneStore[] = [];
  const admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  after(async () => {
    // The admin's end first: it rolls back a lock a failed test held, which a store's close would wait on.
    await admin.end();
    for (const store of stores) await store.close().catch(() => undefined);
    for (const drop of drops) await drop();
  });

  async function open(url: string, options?: Parameters<typeof openControlPlaneStore>[1]) {
    const store = await openControlPlaneStore(url, options);
    stores.push(store);
    return store;
  }

  async function fixture() {
    if (drops.length === 0) await admin.connect();
    const { schema, url, drop } = freshSchema("raes_fault");
    drops.push(drop);
    const store = await open(`${url}&application_name=${schema}`);
    return { schema, url, store, ...(await seed(store)) };
  }

  /** Waits (polling, no deadline assertion) until one of the store's backends is blocked on a lock. */
  async function blockedBackend(schema: string): Promise<number> {
    for (let poll = 0; poll < 2_000; poll++) {
      // A fresh connection each time: pg_stat_activity is frozen for the rest of a transaction.
      const rows = await adminQuery<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
        [schema],
      );
      if (rows[0]) return rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no backend of ${schema} ever waited on a lock`);
  }

  it("fails a commit whose connection is terminated mid-statement, writes nothing, and the next write reconnects", async () => {
    const { schema, store, inv, action } = await fixture();
    await admin.query("BEGIN");
    await admin.query(`SELECT * FROM ${schema}.history_head FOR UPDATE`);
    const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
    const commit = store.commitInvocation(closeCommit(inv, [settled]));
    const rejected = assert.rejects(commit, StoreUnavailableError);
    await admin.query("SELECT pg_terminate_backend($1)", [await blockedBackend(schema)]);
    await rejected;
    await admin.query("ROLLBACK");
    await assertUntouched(store, inv, action);
    await assertWritable(store, inv, action);
    await store.close();
  });

  it("fails an updateClock whose connection is terminated while it waits for the clock row, writing nothing", async () => {
    const { schema, store } = await fixture();
    await store.saveClock(clock());
    await admin.query("BEGIN");
    await admin.query(`SELECT * FROM ${schema}.clocks FOR UPDATE`);
    const at = "2025-01-02T00:00:00.000Z";
    const rejected = assert.rejects(
      store.updateClock(clock(), { advanceTicks: 5, at }),
      StoreUnavailableError,
    );
    await admin.query("SELECT pg_terminate_backend($1)", [await blockedBackend(schema)]);
    await rejected;
    await admin.query("ROLLBACK");
    assert.deepEqual(await store.getClock(clock().clockAddress), clock());
    const next = await store.updateClock(clock(), { advanceTicks: 5, at });
    assert.deepEqual(next, clock({ tick: clock().tick + 5, updatedAt: at }));
    assert.deepEqual(await store.getClock(clock().clockAddress), next);
    await store.close();
  });

  it("keeps serving after every idle connection of its pool is terminated", async () => {
    const { schema, store, inv, action } = await fixture();
    const { rows } = await admin.query<{ killed: boolean }>(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1",
      [schema],
    );
    assert.ok(rows.length > 0 && rows.every((r) => r.killed));
    const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
    const first = await store.updateToolAction(settled, "dispatched").then(
      (updated) => updated,
      (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError, String(error));
        return "refused" as const;
      },
    );
    if (first === "refused") assert.deepEqual(await store.getToolAction(action.id), action);
    else assert.equal(first, true);
    await store.commitInvocation(closeCommit(inv, [settled]));
    assert.equal((await store.listEvents()).length, 3);
    await store.close();
  });

  it("rolls back a write that hits the statement timeout and reports it unavailable", async () => {
    // The write under test waits on a row lock held to the end, so it meets any timeout; the bound is
    // 3 s so that the timed store's own open (its schema check runs under it too) never meets it on a
    // loaded machine. Seeding and the checks run on a store without it.
    const { schema, url, store, inv, action } = await fixture();
    const timed = await open(url, { statementTimeoutMs: 3_000 });
    await admin.query("BEGIN");
    await admin.query(`SELECT * FROM ${schema}.invocations WHERE id = $1 FOR UPDATE`, [inv.id]);
    const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
    await assert.rejects(timed.commitInvocation(closeCommit(inv, [settled])), StoreUnavailableError);
    await admin.query("ROLLBACK");
    await timed.close();
    await assertUntouched(store, inv, action);
    await assertWritable(store, inv, action);
    await store.close();
  });
});

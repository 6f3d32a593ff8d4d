import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { type InvocationRecord, StoreUnavailableError } from "../../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { closeCommit, invocation, P1, scheduler } from "../records.js";
import { ioError, spyOnStatement } from "./statement-spy.js";

const dir = mkdtempSync(join(tmpdir(), "raes-group-commit-failures-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
let stores: SqliteControlPlaneStore[] = [];
let restores: (() => void)[] = [];

afterEach(async () => {
  for (const restore of restores) restore();
  for (const store of stores) await store.close();
  restores = [];
  stores = [];
});

/**
 * Makes every `ROLLBACK TO` fail with an I/O error without running, the driver's own savepoints
 * included (they are prepared outside `Database.prototype.prepare`, so only `run` reaches them).
 */
function failRollbackTo(): void {
  const scratch = new Database(":memory:");
  const prototype = Object.getPrototypeOf(scratch.prepare("SELECT 1")) as Database.Statement;
  scratch.close();
  const original = prototype.run;
  prototype.run = function run(this: Database.Statement, ...args: unknown[]) {
    if (this.source.startsWith("ROLLBACK TO")) throw ioError();
    return original.apply(this, args as []);
  } as typeof original;
  restores.push(() => {
    prototype.run = original;
  });
}

/** Opens a store and hands back its connection too, to squeeze the file it may grow into. */
function openWithConnection(file: string): { store: SqliteControlPlaneStore; db: Database.Database } {
  const original = Database.prototype.prepare;
  let db: Database.Database | undefined;
  Database.prototype.prepare = function prepare(this: Database.Database, source: string) {
    if (source === "BEGIN IMMEDIATE") db = this;
    return original.call(this, source);
  } as typeof original;
  try {
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    stores.push(store);
    assert.ok(db);
    return { store, db };
  } finally {
    Database.prototype.prepare = original;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const opening = (store: SqliteControlPlaneStore, inv: InvocationRecord) =>
  store.openInvocation(inv, scheduler({ nextOrdinal: inv.ordinal + 1 }));

describe("SQLite group commit failures", () => {
  it("a full disk met by the last write of a batch rejects every write of it as unavailable, and the store writes again once there is room", async () => {
    const file = join(dir, `store-${++files}.db`);
    const { store, db } = openWithConnection(file);
    const [first, small, huge, later] = [1, 2, 3, 4].map((n) =>
      invocation({ id: `inv-${n}`, ordinal: n, executionScopeRef: n === 3 ? "x".repeat(400_000) : "scope" }),
    ) as [InvocationRecord, InvocationRecord, InvocationRecord, InvocationRecord];
    await nextTurn();
    const pages = db.pragma("page_count", { simple: true }) as number;
    // A full disk as SQLite meets it: the whole transaction is rolled back, not only the statement.
    db.pragma(`max_page_count = ${pages + 16}`);
    const firstWrite = opening(store, first);
    const results = await Promise.allSettled([opening(store, small), opening(store, huge)]);
    await firstWrite;
    for (const result of results) {
      assert.equal(result.status, "rejected");
      const reason = (result as PromiseRejectedResult).reason;
      assert.ok(reason instanceof StoreUnavailableError, String(reason));
    }
    assert.equal(await store.getInvocation(small.id), undefined);
    assert.equal(await store.getInvocation(huge.id), undefined);
    db.pragma("max_page_count = 1073741823");
    await opening(store, later);
    assert.deepEqual(await store.getInvocation(later.id), later);
    assert.deepEqual(await store.getInvocation(first.id), first);
  });

  it("a write whose failure cannot be undone inside the batch fails the whole batch: nothing of it is committed", async () => {
    const file = join(dir, `store-${++files}.db`);
    const { store } = openWithConnection(file);
    const [a, b, c] = [1, 2, 3].map((n) => invocation({ id: `inv-${n}`, ordinal: n })) as [
      InvocationRecord,
      InvocationRecord,
      InvocationRecord,
    ];
    await opening(store, a);
    await nextTurn();
    failRollbackTo();
    const firstWrite = opening(store, b);
    // Closing `a` twice in one call: the second close finds it closed after the first changed it.
    const results = await Promise.allSettled([
      opening(store, c),
      store.commitInvocations([closeCommit(a), closeCommit(a)]),
    ]);
    await firstWrite;
    assert.deepEqual(
      results.map((r) => r.status),
      ["rejected", "rejected"],
    );
    assert.ok((results[0] as PromiseRejectedResult).reason instanceof StoreUnavailableError);
    for (const reader of [store, SqliteControlPlaneStore.open(`sqlite:${file}`, file)]) {
      if (reader !== store) stores.push(reader);
      assert.equal(
        (await reader.getInvocation(a.id))?.state,
        "running",
        "the failed close left nothing behind",
      );
      assert.deepEqual(await reader.listEvents({}), []);
      assert.equal(await reader.getInvocation(c.id), undefined);
      assert.deepEqual(await reader.getInvocation(b.id), b);
    }
  });

  it("a ROLLBACK that failed after a failing COMMIT leaves no transaction behind: its write is neither read back nor committed later, and the store writes again", async () => {
    const file = join(dir, `store-${++files}.db`);
    const commit = spyOnStatement("COMMIT");
    const rollback = spyOnStatement("ROLLBACK");
    // Restored in the reverse order of installing: each wraps the `prepare` installed before it.
    restores.push(rollback.restore, commit.restore);
    const { store } = openWithConnection(file);
    const [a, b] = [1, 2].map((n) => invocation({ id: `inv-${n}`, ordinal: n })) as [
      InvocationRecord,
      InvocationRecord,
    ];
    await nextTurn();
    commit.failWith = ioError();
    rollback.failWith = ioError();
    await assert.rejects(opening(store, a), StoreUnavailableError);
    commit.failWith = undefined;
    rollback.failWith = undefined;
    assert.equal(await store.getInvocation(a.id), undefined, "a refused write is not read back");
    const lease = await store.acquireLease(P1, "host-a", 60_000);
    assert.ok(lease);
    await nextTurn();
    await opening(store, b);
    await store.close();
    const reader = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    stores.push(reader);
    assert.equal(await reader.getInvocation(a.id), undefined);
    assert.deepEqual(await reader.getInvocation(b.id), b);
    assert.equal((await reader.getLease(P1))?.token, lease.token, "the lease taken after it was committed");
  });
});

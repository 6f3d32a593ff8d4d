import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import {
  type InvocationRecord,
  LeaseLostError,
  StoreConflictError,
  StoreUnavailableError,
  type ToolActionRecord,
} from "../../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { clock, invocation, P1, P2, scheduler, toolAction } from "../records.js";
import { ioError, type StatementSpy, spyOnStatement } from "./statement-spy.js";

const N = 12;
const dir = mkdtempSync(join(tmpdir(), "raes-group-commit-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
let spies: StatementSpy[] = [];
let stores: SqliteControlPlaneStore[] = [];

afterEach(async () => {
  for (const spy of spies) spy.restore();
  for (const store of stores) await store.close();
  spies = [];
  stores = [];
});

function spy(sql: string): StatementSpy {
  const installed = spyOnStatement(sql);
  spies.push(installed);
  return installed;
}

function open(file = join(dir, `store-${++files}.db`), groupCommit = true): SqliteControlPlaneStore {
  const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file, { groupCommit });
  stores.push(store);
  return store;
}

/** Yields past the end of the current event-loop turn, so the next write is the first of its turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const invocations = (n: number, from = 1): InvocationRecord[] =>
  Array.from({ length: n }, (_, i) => invocation({ id: `inv-${from + i}`, ordinal: from + i }));

const opening = (store: SqliteControlPlaneStore, inv: InvocationRecord) =>
  store.openInvocation(inv, scheduler({ nextOrdinal: inv.ordinal + 1 }));

async function assertPresent(store: SqliteControlPlaneStore, invs: readonly InvocationRecord[]) {
  for (const inv of invs) assert.deepEqual(await store.getInvocation(inv.id), inv, inv.id);
}

describe("SQLite group commit", () => {
  it("N writes issued in one turn commit in fewer than N transactions, and all are readable after", async () => {
    const commits = spy("COMMIT");
    const file = join(dir, `store-${++files}.db`);
    const store = open(file);
    await nextTurn();
    const before = commits.runs;
    const invs = invocations(N);
    await Promise.all(invs.map((inv) => opening(store, inv)));
    const transactions = commits.runs - before;
    assert.ok(transactions < N, `${N} writes took ${transactions} transactions`);
    assert.equal(transactions, 2, "the first write commits at once, the rest at the turn's end together");
    await assertPresent(store, invs);
    await assertPresent(open(file), invs);
  });

  it("a lone sequential writer waits a turn once: after a write that found no company, its next writes commit at once", async () => {
    const store = open();
    await nextTurn();
    const [a, b, c, d] = invocations(4) as [
      InvocationRecord,
      InvocationRecord,
      InvocationRecord,
      InvocationRecord,
    ];
    await opening(store, a);
    let before = store.commits;
    const waiting = opening(store, b);
    assert.equal(store.commits, before, "the second write of the turn waits for the turn's end");
    await waiting;
    for (const inv of [c, d]) {
      before = store.commits;
      const write = opening(store, inv);
      assert.equal(store.commits, before + 1, `${inv.id} committed before its call returned`);
      await write;
    }
    await assertPresent(store, [a, b, c, d]);
  });

  it("with groupCommit false every write is its own transaction", async () => {
    const commits = spy("COMMIT");
    const store = open(undefined, false);
    const before = commits.runs;
    await Promise.all(invocations(N).map((inv) => opening(store, inv)));
    assert.equal(commits.runs - before, N);
  });

  it("a fenced write whose lease is lost rejects with LeaseLostError alone; the rest of its batch commits", async () => {
    const commits = spy("COMMIT");
    const store = open();
    const lease = await store.acquireLease(P1, "host-a", 60_000);
    assert.ok(lease);
    const fence = { participantAddress: P1, token: lease.token };
    const stale = { participantAddress: P2, token: 999 };
    await nextTurn();
    const before = commits.runs;
    const [a, b] = invocations(2);
    const results = await Promise.allSettled([
      store.saveClock(clock()),
      store.openInvocation(a as InvocationRecord, scheduler({ nextOrdinal: 2 }), fence),
      store.saveScheduler(scheduler({ participantAddress: P2 }), stale),
      store.openInvocation(b as InvocationRecord, scheduler({ nextOrdinal: 3 }), fence),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "fulfilled", "rejected", "fulfilled"],
    );
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof LeaseLostError);
    assert.equal(commits.runs - before, 2, "the three fenced writes shared one commit");
    await assertPresent(store, [a, b] as InvocationRecord[]);
    assert.equal(await store.getScheduler(P2, scheduler().policyAddress), undefined);
    assert.equal((await store.getScheduler(P1, scheduler().policyAddress))?.nextOrdinal, 3);
  });

  it("a conflicting write inside a batch rejects with StoreConflictError alone; the others commit", async () => {
    const commits = spy("COMMIT");
    const store = open();
    const [inv] = invocations(1) as [InvocationRecord];
    await opening(store, inv);
    await nextTurn();
    const before = commits.runs;
    const [one, two, three] = [1, 2, 3].map((k) => toolAction(inv, k)) as [
      ToolActionRecord,
      ToolActionRecord,
      ToolActionRecord,
    ];
    const results = await Promise.allSettled([
      store.insertToolAction(one),
      store.insertToolAction(two),
      store.insertToolAction({ ...two, toolCallId: "call-again" }),
      store.insertToolAction(three),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "fulfilled", "rejected", "fulfilled"],
    );
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof StoreConflictError);
    assert.equal(commits.runs - before, 2);
    for (const action of [one, two, three]) assert.deepEqual(await store.getToolAction(action.id), action);
  });

  it("a failing COMMIT rejects every caller of the batch with the store's error and loses nothing acknowledged", async () => {
    const commits = spy("COMMIT");
    const file = join(dir, `store-${++files}.db`);
    const store = open(file);
    await nextTurn();
    const [acked, lost1, lost2, later] = invocations(4) as [
      InvocationRecord,
      InvocationRecord,
      InvocationRecord,
      InvocationRecord,
    ];
    const first = opening(store, acked);
    commits.failWith = ioError();
    const before = commits.runs;
    const batch = [
      opening(store, lost1),
      opening(store, lost2),
      store.insertToolAction(toolAction(acked, 1)),
    ];
    const results = await Promise.allSettled(batch);
    commits.failWith = undefined;
    assert.equal(commits.runs - before, 1, "the three writes met one failing COMMIT");
    await first;
    for (const result of results) {
      assert.equal(result.status, "rejected");
      assert.ok((result as PromiseRejectedResult).reason instanceof StoreUnavailableError);
    }
    await opening(store, later);
    for (const reader of [store, open(file)]) {
      await assertPresent(reader, [acked, later]);
      assert.equal(await reader.getInvocation(lost1.id), undefined);
      assert.equal(await reader.getInvocation(lost2.id), undefined);
      assert.equal(await reader.getToolAction(toolAction(acked, 1).id), undefined);
    }
  });

  it("a read or a lease call in the same turn sees the queued writes issued before it", async () => {
    const store = open();
    await nextTurn();
    const [a, b] = invocations(2) as [InvocationRecord, InvocationRecord];
    const writes = [opening(store, a), opening(store, b)];
    assert.deepEqual(await store.getInvocation(b.id), b);
    await Promise.all(writes);
  });

  it("closing the store commits the queued writes and settles their callers", async () => {
    const file = join(dir, `store-${++files}.db`);
    const store = open(file);
    await nextTurn();
    const invs = invocations(4);
    const writes = invs.map((inv) => opening(store, inv));
    await store.close();
    await Promise.all(writes);
    await assertPresent(open(file), invs);
  });

  it("a batch of settlements only commits without fsync; one holding a dispatch commits with it", async () => {
    const normal = spy("PRAGMA synchronous = NORMAL");
    const store = open();
    const [inv] = invocations(1) as [InvocationRecord];
    await opening(store, inv);
    const actions = [1, 2, 3].map((k) => toolAction(inv, k, { phase: "dispatched" }));
    for (const action of actions) await store.insertToolAction(action);
    const settle = (action: ToolActionRecord) =>
      store.updateToolAction({ ...action, phase: "settled", settlement: "succeeded" }, "dispatched");
    await nextTurn();
    let before = normal.runs;
    const [a1, a2, a3] = actions as [ToolActionRecord, ToolActionRecord, ToolActionRecord];
    await Promise.all([store.saveClock(clock()), settle(a1), settle(a2)]);
    assert.equal(normal.runs - before, 1, "the batch of two settlements ran at synchronous=NORMAL");
    await nextTurn();
    const claim = toolAction(inv, 4);
    await store.insertToolAction(claim);
    before = normal.runs;
    await Promise.all([
      store.saveClock(clock({ tick: 4 })),
      settle(a3),
      store.updateToolAction({ ...claim, phase: "dispatched" }, "admitted"),
    ]);
    assert.equal(normal.runs - before, 0, "a batch holding a dispatch commits at synchronous=FULL");
  });
});

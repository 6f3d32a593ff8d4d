import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { LeaseLostError } from "../../../src/store/index.js";
import { leaseStatements } from "../../../src/store/sql/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { invocation, P1, scheduler, toolAction } from "../records.js";
import { spyOnStatement } from "./statement-spy.js";

const dir = mkdtempSync(join(tmpdir(), "raes-fenced-writes-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The lease read a fenced write made before writing (SqliteLeases.check), as the store prepares it. */
const LEASE_READ = leaseStatements({ placeholder: (n) => `@p${n}`, now: "@p5" }).current;

describe("sqlite fenced tool-action writes", () => {
  it("carry the fence in their own statement: the lease is read only when a write changed nothing", async () => {
    const spy = spyOnStatement(LEASE_READ);
    const file = join(dir, "fold.db");
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    try {
      const lease = await store.acquireLease(P1, "host-a", 60_000);
      assert.ok(lease);
      const fence = { participantAddress: P1, token: lease.token };
      const inv = invocation();
      await store.openInvocation(inv, scheduler({ attempts: 1 }), fence);
      const before = spy.reads;
      const action = toolAction(inv, 1);
      await store.insertToolAction(action, fence);
      const dispatched = { ...action, phase: "dispatched" as const, dispatchedAt: action.createdAt };
      assert.equal(await store.updateToolAction(dispatched, "admitted", fence), true);
      const settled = { ...dispatched, phase: "settled" as const, settlement: "succeeded" as const };
      assert.equal(await store.updateToolAction(settled, "dispatched", fence), true);
      assert.equal(spy.reads, before, "no lease read before a write that went through");
      assert.equal(await store.updateToolAction(settled, "dispatched", fence), false, "phase moved on");
      assert.equal(spy.reads, before + 1, "one read tells a moved phase from a lost lease");
      assert.deepEqual(await store.getToolAction(action.id), settled);
    } finally {
      spy.restore();
      await store.close();
    }
  });

  it("write nothing and throw LeaseLostError under a lost lease, whatever else the write would meet", async () => {
    const file = join(dir, "lost.db");
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    try {
      const old = await store.acquireLease(P1, "host-a", 0);
      assert.ok(old);
      const stale = { participantAddress: P1, token: old.token };
      const inv = invocation();
      await store.openInvocation(inv, scheduler({ attempts: 1 }), stale);
      const action = toolAction(inv, 1);
      await store.insertToolAction(action, stale);
      assert.ok(await store.acquireLease(P1, "host-b", 60_000));
      const dispatched = { ...action, phase: "dispatched" as const, dispatchedAt: action.createdAt };
      // A fresh claim, a duplicate one, and a step from the right and from a wrong phase.
      await assert.rejects(store.insertToolAction(toolAction(inv, 2), stale), LeaseLostError);
      await assert.rejects(store.insertToolAction(action, stale), LeaseLostError);
      await assert.rejects(store.updateToolAction(dispatched, "admitted", stale), LeaseLostError);
      await assert.rejects(store.updateToolAction(dispatched, "dispatched", stale), LeaseLostError);
      assert.equal(await store.getToolAction(toolAction(inv, 2).id), undefined);
      assert.deepEqual(await store.getToolAction(action.id), action);
    } finally {
      await store.close();
    }
  });
});

import assert from "node:assert/strict";
import { it } from "node:test";
import type { FixtureSource } from "./contract.js";
import { clock, closeCommit, invocation, P1, scheduler, toolAction } from "./records.js";

/** Reopening a durable store's URL keeps everything; the in-memory store skips these. */
export function durabilityCases(fixture: FixtureSource): void {
  it("keeps every record, event and lease token across a reopen, and migrates idempotently", async (t) => {
    const { store, reopen } = fixture();
    if (!reopen) {
      t.skip("this store is not durable");
      return;
    }
    const done = invocation({ id: "inv-a" });
    const open = invocation({ id: "inv-b", ordinal: 2 });
    const lease = await store.acquireLease(P1, "host-a", 0);
    assert.ok(lease);
    const fence = { participantAddress: P1, token: lease.token };
    await store.saveClock(clock());
    await store.openInvocation(done, scheduler({ attempts: 1 }), fence);
    await store.commitInvocation(closeCommit(done), fence);
    await store.openInvocation(open, scheduler({ attempts: 1, nextOrdinal: 3 }), fence);
    await store.insertToolAction(toolAction(open, 1, { phase: "dispatched" }), fence);
    const snapshot = {
      clock: await store.getClock("clock:shared"),
      schedulers: await store.listSchedulers(),
      open: await store.listOpenInvocations(),
      done: await store.getInvocation(done.id),
      actions: await store.listToolActions({}),
      events: await store.listEvents(),
      operation: await store.getOperation(toolAction(open, 1).id),
    };
    await store.close();
    const again = await reopen();
    await again.close();
    const reopened = await reopen();
    try {
      assert.deepEqual(
        {
          clock: await reopened.getClock("clock:shared"),
          schedulers: await reopened.listSchedulers(),
          open: await reopened.listOpenInvocations(),
          done: await reopened.getInvocation(done.id),
          actions: await reopened.listToolActions({}),
          events: await reopened.listEvents(),
          operation: await reopened.getOperation(toolAction(open, 1).id),
        },
        snapshot,
      );
      assert.equal(snapshot.events.length, 3);
      const next = await reopened.acquireLease(P1, "host-b", 60_000);
      assert.ok(next);
      assert.ok(next.token > lease.token);
      await reopened.commitInvocation(closeCommit(open), { participantAddress: P1, token: next.token });
      assert.deepEqual(
        (await reopened.listEvents()).map((e) => e.sequence),
        [1, 2, 3, 4, 5, 6],
      );
    } finally {
      await reopened.close();
    }
  });
}

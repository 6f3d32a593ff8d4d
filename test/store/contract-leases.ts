import assert from "node:assert/strict";
import { it } from "node:test";
import { LeaseLostError, StoreConflictError } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, invocation, P1, P2, scheduler, toolAction } from "./records.js";

const LONG = 60_000;

/** A store with P1's lease taken with no lifetime (any owner may take it over) and one claim under it. */
async function claimedUnderExpiringLease(fixture: FixtureSource) {
  const { store } = fixture();
  const old = await store.acquireLease(P1, "host-a", 0);
  assert.ok(old);
  const stale = { participantAddress: P1, token: old.token };
  const inv = invocation();
  const action = toolAction(inv, 1);
  await store.openInvocation(inv, scheduler({ attempts: 1 }), stale);
  await store.insertToolAction(action, stale);
  return { store, stale, action };
}

/** Lease ownership, renewal, expiry, release and fencing of every fenced write. */
export function leaseCases(fixture: FixtureSource): void {
  it("grants a free lease, refuses another owner while live and renews for its owner", async () => {
    const { store } = fixture();
    const lease = await store.acquireLease(P1, "host-a", LONG);
    assert.ok(lease);
    assert.equal(lease.participantAddress, P1);
    assert.equal(lease.ownerId, "host-a");
    assert.equal(await store.acquireLease(P1, "host-b", LONG), undefined);
    const renewed = await store.acquireLease(P1, "host-a", LONG * 2);
    assert.ok(renewed);
    assert.equal(renewed.token, lease.token);
    assert.ok(renewed.expiresAt > lease.expiresAt);
    assert.ok(await store.acquireLease(P2, "host-b", LONG), "leases are per participant");
  });

  it("renews its owner's leases in one call, keeping their tokens, and never takes one back", async () => {
    const { store } = fixture();
    const mine = await store.acquireLease(P1, "host-a", 1_000);
    const lost = await store.acquireLease(P2, "host-a", 0);
    assert.ok(mine && lost);
    const taken = await store.acquireLease(P2, "host-b", LONG);
    assert.ok(taken);
    const renewed = await store.renewLeases([mine, lost], LONG);
    assert.deepEqual(
      renewed.map((l) => [l.participantAddress, l.ownerId, l.token]),
      [[P1, "host-a", mine.token]],
    );
    assert.ok((renewed[0]?.expiresAt ?? 0) > mine.expiresAt);
    assert.deepEqual(await store.getLease(P1), renewed[0]);
    assert.deepEqual(await store.getLease(P2), taken, "another owner's lease is left as it is");
    await store.releaseLease(taken);
    assert.deepEqual(await store.renewLeases([lost], LONG), [], "a released lease is not taken back");
    assert.equal(await store.getLease(P2), undefined);
    assert.deepEqual(await store.renewLeases([], LONG), []);
  });

  it("renews an expired lease nobody took, under its token, so its fenced writes still commit", async () => {
    const { store } = fixture();
    const lapsed = await store.acquireLease(P1, "host-a", 0);
    assert.ok(lapsed);
    const [renewed] = await store.renewLeases([lapsed], LONG);
    assert.equal(renewed?.token, lapsed.token);
    assert.equal(await store.acquireLease(P1, "host-b", LONG), undefined, "live again for its owner");
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }), {
      participantAddress: P1,
      token: lapsed.token,
    });
  });

  it("hands an expired lease to a new owner with a greater token", async () => {
    const { store } = fixture();
    const expired = await store.acquireLease(P1, "host-a", 0);
    assert.ok(expired);
    const taken = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(taken);
    assert.ok(taken.token > expired.token);
    assert.equal(await store.acquireLease(P1, "host-a", LONG), undefined);
  });

  it("releases only the current lease, and the next owner's token still grows", async () => {
    const { store } = fixture();
    const first = await store.acquireLease(P1, "host-a", 0);
    assert.ok(first);
    const second = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(second);
    await store.releaseLease(first);
    assert.equal(await store.acquireLease(P1, "host-c", LONG), undefined, "a stale release changes nothing");
    await store.releaseLease(second);
    const third = await store.acquireLease(P1, "host-a", LONG);
    assert.ok(third);
    assert.ok(third.token > second.token);
  });

  it("numbers each participant's tokens on its own: another participant's takeovers do not move them", async () => {
    const { store } = fixture();
    const first = await store.acquireLease(P1, "host-a", 0);
    assert.ok(first);
    for (const owner of ["host-b", "host-c", "host-d"]) {
      assert.ok(await store.acquireLease(P2, owner, 0), "P2 changes hands");
    }
    const next = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(next);
    assert.equal(next.token, first.token + 1, "P1's next owner gets the token after P1's last one");
    const other = await store.getLease(P2);
    assert.ok(other);
    const p2First = other.token - 2;
    assert.equal(p2First, first.token, "every participant's first token is the same number");
  });

  it("reads the held lease, live or expired, and nothing once released or never taken", async () => {
    const { store } = fixture();
    assert.equal(await store.getLease(P1), undefined);
    const expired = await store.acquireLease(P1, "host-a", 0);
    assert.ok(expired);
    assert.deepEqual(await store.getLease(P1), expired);
    const taken = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(taken);
    assert.deepEqual(await store.getLease(P1), taken);
    assert.equal(await store.getLease(P2), undefined);
    await store.releaseLease(taken);
    assert.equal(await store.getLease(P1), undefined);
  });

  it("takes a live lease only from the owner it replaces, with a greater token that fences the old one out", async () => {
    const { store } = fixture();
    const dead = await store.acquireLease(P1, "host-a", LONG);
    assert.ok(dead);
    assert.equal(await store.acquireLease(P1, "host-b", LONG, { replacing: "host-x" }), undefined);
    assert.deepEqual(await store.getLease(P1), dead);
    const taken = await store.acquireLease(P1, "host-b", LONG, { replacing: "host-a" });
    assert.ok(taken);
    assert.equal(taken.ownerId, "host-b");
    assert.ok(taken.token > dead.token);
    assert.deepEqual(await store.getLease(P1), taken);
    assert.equal(await store.acquireLease(P1, "host-a", LONG), undefined);
    assert.equal(
      await store.acquireLease(P1, "host-c", LONG, { replacing: "host-a" }),
      undefined,
      "replacing names an owner, not a former one",
    );
    await assert.rejects(
      store.saveScheduler(scheduler({ cursor: 9 }), { participantAddress: P1, token: dead.token }),
      LeaseLostError,
    );
    assert.deepEqual(await store.listSchedulers(), []);
    await store.saveScheduler(scheduler(), { participantAddress: P1, token: taken.token });
    assert.deepEqual(await store.listSchedulers(), [scheduler()]);
    const renewed = await store.acquireLease(P1, "host-b", LONG, { replacing: "host-a" });
    assert.equal(renewed?.token, taken.token, "the holder renews under its own token");
  });

  it("accepts every fenced write under the current token", async () => {
    const { store } = fixture();
    const lease = await store.acquireLease(P1, "host-a", LONG);
    assert.ok(lease);
    const fence = { participantAddress: P1, token: lease.token };
    const inv = invocation();
    await store.saveScheduler(scheduler(), fence);
    await store.openInvocation(inv, scheduler({ attempts: 1 }), fence);
    const action = toolAction(inv, 1);
    await store.insertToolAction(action, fence);
    const dispatched = { ...action, phase: "dispatched" as const };
    assert.equal(await store.updateToolAction(dispatched, "admitted", fence), true);
    const settled = { ...dispatched, phase: "settled" as const, settlement: "succeeded" as const };
    await store.commitInvocation(closeCommit(inv, [settled]), fence);
    assert.equal((await store.getInvocation(inv.id))?.state, "succeeded");
    assert.equal((await store.listEvents()).length, 3);
  });

  it("refuses every fenced write once the lease was taken over, writing nothing", async () => {
    const { store } = fixture();
    const old = await store.acquireLease(P1, "host-a", 0);
    assert.ok(old);
    const inv = invocation();
    const action = toolAction(inv, 1);
    await store.openInvocation(inv, scheduler({ attempts: 1 }), { participantAddress: P1, token: old.token });
    await store.insertToolAction(action, { participantAddress: P1, token: old.token });
    const current = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(current);
    const stale = { participantAddress: P1, token: old.token };
    const dispatched = { ...action, phase: "dispatched" as const };
    await assert.rejects(store.saveScheduler(scheduler({ cursor: 5 }), stale), LeaseLostError);
    await assert.rejects(
      store.openInvocation(invocation({ id: "inv-b" }), scheduler({ attempts: 2 }), stale),
      LeaseLostError,
    );
    await assert.rejects(store.insertToolAction(toolAction(inv, 2), stale), LeaseLostError);
    await assert.rejects(store.updateToolAction(dispatched, "admitted", stale), LeaseLostError);
    await assert.rejects(store.commitInvocation(closeCommit(inv, [dispatched]), stale), LeaseLostError);
    assert.deepEqual(await store.getScheduler(P1, inv.policyAddress), scheduler({ attempts: 1 }));
    assert.equal(await store.getInvocation("inv-b"), undefined);
    assert.equal(await store.getToolAction(toolAction(inv, 2).id), undefined);
    assert.deepEqual(await store.getToolAction(action.id), action);
    assert.deepEqual(await store.getInvocation(inv.id), inv);
    assert.deepEqual(await store.listEvents(), []);
    const fresh = { participantAddress: P1, token: current.token };
    assert.equal(await store.updateToolAction(dispatched, "admitted", fresh), true);
  });

  it("tells a settlement in the wrong phase (false) from one under a lost lease (LeaseLostError)", async () => {
    const { store, stale, action } = await claimedUnderExpiringLease(fixture);
    const settled = { ...action, phase: "settled" as const, settlement: "succeeded" as const };
    assert.equal(await store.updateToolAction(settled, "dispatched", stale), false, "held, wrong phase");
    const current = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(current);
    await assert.rejects(store.updateToolAction(settled, "dispatched", stale), LeaseLostError);
    await assert.rejects(store.updateToolAction(settled, "admitted", stale), LeaseLostError);
    assert.deepEqual(await store.getToolAction(action.id), action);
  });

  it("tells a duplicate claim under the held lease (conflict) from one under a lost lease (LeaseLostError)", async () => {
    const { store, stale, action } = await claimedUnderExpiringLease(fixture);
    const again = { ...action, requestDigest: "sha256:other" };
    await assert.rejects(store.insertToolAction(again, stale), StoreConflictError, "held, duplicate");
    const current = await store.acquireLease(P1, "host-b", LONG);
    assert.ok(current);
    await assert.rejects(store.insertToolAction(again, stale), LeaseLostError);
    await assert.rejects(
      store.insertToolAction(toolAction(invocation({ id: "inv-x" }), 1), stale),
      LeaseLostError,
    );
    assert.deepEqual(await store.getToolAction(action.id), action);
    assert.equal(await store.getToolAction(toolAction(invocation({ id: "inv-x" }), 1).id), undefined);
  });

  it("refuses writes fenced by a released lease or for a participant never leased", async () => {
    const { store } = fixture();
    const lease = await store.acquireLease(P1, "host-a", LONG);
    assert.ok(lease);
    await store.releaseLease(lease);
    await assert.rejects(
      store.saveScheduler(scheduler(), { participantAddress: P1, token: lease.token }),
      LeaseLostError,
    );
    await assert.rejects(
      store.saveScheduler(scheduler({ participantAddress: P2 }), {
        participantAddress: P2,
        token: lease.token,
      }),
      LeaseLostError,
    );
    assert.deepEqual(await store.listSchedulers(), []);
  });
}

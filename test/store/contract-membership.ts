import assert from "node:assert/strict";
import { it } from "node:test";
import type { FixtureSource } from "./contract.js";
import { P1, P2 } from "./records.js";

const LONG = 60_000;

/** The runtime-process membership and the lease listing processes share participants by. */
export function membershipCases(fixture: FixtureSource): void {
  it("a heartbeat joins the process and lists every live one, itself included, by owner id", async () => {
    const { store } = fixture();
    const first = await store.heartbeatProcess("host-b", LONG);
    assert.deepEqual(
      first.map((m) => m.ownerId),
      ["host-b"],
    );
    const both = await store.heartbeatProcess("host-a", LONG);
    assert.deepEqual(
      both.map((m) => m.ownerId),
      ["host-a", "host-b"],
    );
    const again = await store.heartbeatProcess("host-b", LONG * 2);
    assert.deepEqual(
      again.map((m) => m.ownerId),
      ["host-a", "host-b"],
    );
    const [, b] = again;
    assert.ok(b && first[0] && b.expiresAt > first[0].expiresAt, "a heartbeat extends the process's life");
  });

  it("a process whose heartbeat expired is not live for the others until it beats again", async () => {
    const { store } = fixture();
    await store.heartbeatProcess("host-a", 0);
    const seen = await store.heartbeatProcess("host-b", LONG);
    assert.deepEqual(
      seen.map((m) => m.ownerId),
      ["host-b"],
    );
    const own = await store.heartbeatProcess("host-a", LONG);
    assert.deepEqual(
      own.map((m) => m.ownerId),
      ["host-a", "host-b"],
      "it is live again once it beats",
    );
  });

  it("a process that leaves is no longer live, and leaving twice changes nothing", async () => {
    const { store } = fixture();
    await store.heartbeatProcess("host-a", LONG);
    await store.heartbeatProcess("host-b", LONG);
    await store.leaveProcesses("host-a");
    await store.leaveProcesses("host-a");
    await store.leaveProcesses("host-never");
    const seen = await store.heartbeatProcess("host-b", LONG);
    assert.deepEqual(
      seen.map((m) => m.ownerId),
      ["host-b"],
    );
  });

  it("lists every held lease, live or expired, by participant, and none released", async () => {
    const { store } = fixture();
    assert.deepEqual(await store.listLeases(), []);
    const second = await store.acquireLease(P2, "host-b", LONG);
    const first = await store.acquireLease(P1, "host-a", 0);
    assert.ok(first && second);
    assert.deepEqual(await store.listLeases(), [first, second]);
    await store.releaseLease(second);
    assert.deepEqual(await store.listLeases(), [first]);
    const taken = await store.acquireLease(P1, "host-c", LONG);
    assert.ok(taken);
    assert.deepEqual(await store.listLeases(), [taken], "a taken-over lease is listed under its new owner");
  });
}

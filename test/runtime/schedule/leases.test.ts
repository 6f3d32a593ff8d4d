import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type LoadTaken, ParticipantLeases } from "../../../src/runtime/schedule/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  StoreUnavailableError,
} from "../../../src/store/index.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";

const A = "participant:share/a";
const B = "participant:share/b";

/** The store, with `acquireLease` failing on the listed calls (1-based). */
function failingAcquires(store: ControlPlaneStore, failOn: readonly number[]): ControlPlaneStore {
  let calls = 0;
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "acquireLease") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<ControlPlaneStore["acquireLease"]>) => {
        calls += 1;
        if (failOn.includes(calls)) return Promise.reject(new StoreUnavailableError("store went away"));
        return target.acquireLease(...args);
      };
    },
  });
}

function leasesOn(store: ControlPlaneStore): ParticipantLeases {
  return new ParticipantLeases({
    store,
    ownerId: "owner-1",
    leaseTtlMs: 60_000,
    nowMs: Date.now,
    participants: [A, B],
  });
}

/** A step boundary's take: rebalance, then load what is held but not loaded. */
async function takeShare(leases: ParticipantLeases, load: LoadTaken): Promise<void> {
  await leases.rebalance();
  await leases.loadPending(load);
}

/** Every set a step boundary hands its load, in order; `fail` makes the load throw once, on that call. */
function recorder(fail?: number) {
  const loads: string[][] = [];
  const load = async (taken: ReadonlySet<string>) => {
    loads.push([...taken].sort());
    if (loads.length === fail) throw new StoreUnavailableError("store went away while loading");
  };
  return { loads, load };
}

describe("ParticipantLeases.rebalance then loadPending", () => {
  it("loads a participant taken by a rebalance that failed part-way, at the next step", async () => {
    const store = await openControlPlaneStore("memory:");
    const leases = leasesOn(failingAcquires(store, [2]));
    const { loads, load } = recorder();
    await assert.rejects(takeShare(leases, load), StoreUnavailableError);
    assert.equal(leases.owned().size, 1, "one lease was taken before the failure");
    await takeShare(leases, load);
    assert.deepEqual(loads, [[A, B]]);
    await takeShare(leases, load);
    assert.deepEqual(loads, [[A, B]], "nothing is loaded twice once loaded");
  });

  it("loads again what a load that failed did not finish", async () => {
    const store = await openControlPlaneStore("memory:");
    const leases = leasesOn(store);
    const { loads, load } = recorder(1);
    await assert.rejects(takeShare(leases, load), StoreUnavailableError);
    await takeShare(leases, load);
    assert.deepEqual(loads, [
      [A, B],
      [A, B],
    ]);
  });
});

/** The store, counting the calls made to each of its methods. */
function counting(store: ControlPlaneStore): { store: ControlPlaneStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe("ParticipantLeases at every step boundary", () => {
  const TTL = 60_000;
  const T0 = 1_000_000;
  const open = async () => {
    let now = T0;
    // The store and the process read one clock, as on one host.
    const memory = new MemoryControlPlaneStore({ now: () => now });
    const { store, calls } = counting(memory);
    const leases = new ParticipantLeases({
      store,
      ownerId: "owner-1",
      leaseTtlMs: TTL,
      nowMs: () => now,
      participants: [A, B],
    });
    return { memory, leases, calls, advance: (ms: number) => (now += ms) };
  };

  it("writes its heartbeat at every step boundary, so it stays live a lease lifetime after the last one", async () => {
    const { memory, leases, calls, advance } = await open();
    await leases.rebalance();
    advance(1);
    await leases.rebalance();
    advance(1);
    await leases.rebalance();
    assert.equal(calls.get("heartbeatProcess"), 3);
    const [self] = await memory.heartbeatProcess("someone-else", TTL);
    assert.equal(self?.ownerId, "owner-1");
    assert.equal(self?.expiresAt, T0 + 2 + TTL);
  });

  it("sees a process that joined at its next step boundary and hands it its share", async () => {
    const { memory, leases } = await open();
    await leases.rebalance();
    assert.equal(leases.owned().size, 2);
    await memory.heartbeatProcess("owner-2", TTL);
    await leases.rebalance();
    assert.equal(leases.share().processes, 2);
    assert.equal(leases.owned().size, 1, "it handed the joiner its share at once");
  });

  it("reads no leases while it is alone and holds every participant", async () => {
    const { memory, leases, calls } = await open();
    await leases.rebalance();
    const listed = calls.get("listLeases") ?? 0;
    await leases.rebalance();
    await leases.rebalance();
    assert.equal(calls.get("listLeases") ?? 0, listed, "nothing to plan: it keeps them all");
    assert.equal(leases.owned().size, 2);
    await memory.heartbeatProcess("owner-2", TTL);
    await leases.rebalance();
    assert.equal(calls.get("listLeases"), listed + 1, "with another process live it plans from the leases");
  });
});

describe("a step's heartbeat sent ahead of its rebalance", () => {
  const leasesWith = (store: ControlPlaneStore) =>
    new ParticipantLeases({
      store,
      ownerId: "owner-1",
      leaseTtlMs: 60_000,
      nowMs: Date.now,
      participants: [A, B],
    });

  it("is the rebalance's one heartbeat, written before the rebalance starts", async () => {
    const { store, calls } = counting(await openControlPlaneStore("memory:"));
    const leases = leasesWith(store);
    leases.beatAhead();
    leases.beatAhead();
    assert.equal(calls.get("heartbeatProcess"), 1, "sent at once, and once");
    await leases.rebalance();
    assert.equal(calls.get("heartbeatProcess"), 1, "the rebalance took its answer");
    assert.equal(leases.owned().size, 2);
    await leases.rebalance();
    assert.equal(calls.get("heartbeatProcess"), 2, "the next rebalance beats again");
  });

  it("fails the rebalance that takes it, never unhandled, and is forgotten when its step failed first", async () => {
    const memory = await openControlPlaneStore("memory:");
    let failing = true;
    const store = aroundStoreMethod(memory, "heartbeatProcess", (_args, call) =>
      failing ? Promise.reject(new StoreUnavailableError("store went away")) : call(),
    );
    const leases = leasesWith(store);
    leases.beatAhead();
    // A turn passes with the rejection unawaited, as while the step reads its services.
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(leases.rebalance(), StoreUnavailableError);
    leases.beatAhead();
    leases.dropAhead();
    failing = false;
    await leases.rebalance();
    assert.equal(leases.owned().size, 2, "the rebalance beat anew");
  });
});

describe("a process leaving with a heartbeat sent ahead", () => {
  for (const dropped of [false, true])
    it(`waits for it${dropped ? ", dropped by a failed step," : ""} so it never lands after the process left`, async () => {
      const memory = await openControlPlaneStore("memory:");
      const store = aroundStoreMethod(memory, "heartbeatProcess", async (_args, call) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return call();
      });
      const leases = leasesOn(store);
      await leases.rebalance();
      leases.beatAhead();
      if (dropped) leases.dropAhead();
      await leases.releaseAll();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const live = await memory.heartbeatProcess("probe", 60_000);
      assert.deepEqual(
        live.map((m) => m.ownerId),
        ["probe"],
      );
    });
});

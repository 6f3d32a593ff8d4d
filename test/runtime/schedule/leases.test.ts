import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type LoadTaken, ParticipantLeases } from "../../../src/runtime/schedule/index.js";
import {
  type ControlPlaneStore,
  openControlPlaneStore,
  StoreUnavailableError,
} from "../../../src/store/index.js";

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

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChainWatch } from "../../src/serve/chain.js";
import { TimelineFrames } from "../../src/serve/frames.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  StoreSchemaDamagedError,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { P1 } from "../store/records.js";

/** `store` whose reads throw `error` while `failing.on`, each after `clock.took` ms on the watch's clock. */
function failingReads(store: ControlPlaneStore, error: Error, clock: { now: number; took: number }) {
  const failing = { on: true };
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (failing.on && typeof name === "string" && /^(read|list|get)/.test(name)) {
          clock.now += clock.took;
          return Promise.reject(error);
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, failing };
}

const HEADS = [
  {
    participant_address: P1,
    scenario_digest: null,
    manifest_digest: null,
    head_digest: "sha256:00",
    head_sequence: 0,
    events: 0,
    backfilled_at: null,
  },
];

/** One failed check over a store whose reads throw `error` (each taking `took` ms), then a check after `after` ms. */
async function failedThenRead(error: Error, took: number, after: number) {
  const memory = new MemoryControlPlaneStore();
  const decisionHead = await memory.getDecisionHead();
  const clock = { now: 0, took };
  const { store, failing } = failingReads(memory, error, clock);
  const watch = new ChainWatch(store, { minIntervalMs: 2_000, recheckMs: 60_000 }, () => clock.now);
  watch.observe(HEADS, decisionHead);
  await watch.settled();
  const failed = { participant: watch.participant(P1), decisions: watch.decisions(), store: watch.store() };
  const frame = await new TimelineFrames(memory, "memory:").html(
    P1,
    "v1",
    watch.participant(P1),
    watch.store(),
  );
  failing.on = false;
  clock.now += after;
  watch.observe(HEADS, decisionHead);
  await watch.settled();
  return { failed, frame: frame ?? "", next: { decisions: watch.decisions(), store: watch.store() } };
}

describe("the console's chain watch", () => {
  it("a check that meets a damaged store: the store's evidence is broken with its error, each chain could not be checked", async () => {
    const damage = new StoreSchemaDamagedError(
      "control-plane store x is damaged: no such table: history_events",
    );
    const { failed, frame, next } = await failedThenRead(damage, 0, 2_000);
    const unreadable = { state: "unreadable", count: 0, failure: damage.message };
    assert.deepEqual(failed, {
      participant: unreadable,
      decisions: unreadable,
      store: { state: "broken", count: 0, failure: damage.message },
    });
    // The timeline frame draws no badge from a chain it could not read: the console's badges say why.
    assert.doesNotMatch(frame, /data-chain="(verified|broken)"/);
    assert.equal(next.decisions.state, "verified", "the next check, heads unmoved, reads the store again");
    assert.equal(next.store.state, "verified");
  });

  it("a check that meets an unavailable store: every badge could not be checked, and a slow failure adds no wait", async () => {
    const away = new StoreUnavailableError("control-plane store x is unavailable: Query read timeout");
    // The failed read took 15 s (a timeout): the next check still comes after the 2 s minimum, not 150 s.
    const { failed, next } = await failedThenRead(away, 15_000, 2_000);
    const unreadable = { state: "unreadable", count: 0, failure: away.message };
    assert.deepEqual(failed, { participant: unreadable, decisions: unreadable, store: unreadable });
    assert.equal(next.store.state, "verified");
  });
});

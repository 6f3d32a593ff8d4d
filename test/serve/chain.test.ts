import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChainWatch } from "../../src/serve/chain.js";
import { TimelineFrames } from "../../src/serve/frames.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  StoreSchemaDamagedError,
} from "../../src/store/index.js";
import { P1 } from "../store/records.js";

/** `store` whose reads throw `error` while `failing.on` (the heads the watch is given excepted). */
function failingReads(store: ControlPlaneStore, error: Error) {
  const failing = { on: true };
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (failing.on && typeof name === "string" && /^(read|list|get)/.test(name))
          return Promise.reject(error);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, failing };
}

describe("the console's chain watch", () => {
  it("shows a check that could not read the store on every badge, with the store's error, until a check reads it", async () => {
    const memory = new MemoryControlPlaneStore();
    const heads = [
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
    const decisionHead = await memory.getDecisionHead();
    const damage = new StoreSchemaDamagedError(
      "control-plane store x is damaged: no such table: history_events",
    );
    const { store, failing } = failingReads(memory, damage);
    let now = 0;
    const watch = new ChainWatch(store, { minIntervalMs: 0, recheckMs: 0 }, () => now);
    watch.observe(heads, decisionHead);
    await watch.settled();
    for (const view of [watch.participant(P1), watch.decisions(), watch.store()])
      assert.deepEqual(view, { state: "unreadable", count: 0, failure: damage.message });
    // The timeline frame draws no badge from a chain it could not read: the console's badge says why.
    const frame = await new TimelineFrames(memory, "memory:").html(
      P1,
      "v1",
      watch.participant(P1),
      watch.store(),
    );
    assert.doesNotMatch(frame ?? "", /data-chain="(verified|broken)"/);

    failing.on = false;
    // Past the wait after a check (ten times its duration), on the watch's own clock.
    now += 60_000;
    watch.observe(heads, decisionHead);
    await watch.settled();
    assert.equal(watch.decisions().state, "verified", "the next check, heads unmoved, reads the store again");
    assert.equal(watch.store().state, "verified");
  });
});

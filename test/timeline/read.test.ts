import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HistoryEvent } from "../../src/history/index.js";
import { MemoryControlPlaneStore } from "../../src/store/index.js";
import type { ControlPlaneStore } from "../../src/store/types.js";
import { LISTED_FROM, readTimelineInput, renderTimelineHtml } from "../../src/timeline/index.js";
import { shareStrings, timelineEvent } from "../../src/timeline/read.js";
import { runKnownHistory } from "../fixtures/history/scripted-run.js";
import { EXAMPLE } from "../helpers/example.js";

/** The store, counting its `getOperation` calls. */
function counting(store: ControlPlaneStore): { store: ControlPlaneStore; gets: () => number } {
  let gets = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "getOperation") return value.bind(target);
      return (id: string) => {
        gets += 1;
        return target.getOperation(id);
      };
    },
  });
  return { store: counted, gets: () => gets };
}

describe("readTimelineInput", () => {
  it("reads the history and the operations listing a page at a time, and gives what one read gives", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const asked: string[] = [];
    const paged: MemoryControlPlaneStore = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        // The memory store's snapshot is its live reads: read through this proxy too.
        if (property === "readSnapshot") return (work: (reads: unknown) => unknown) => work(paged);
        if (property !== "listEvents" && property !== "listOperations") return value.bind(target);
        return (query: { limit?: number }) => {
          asked.push(`${String(property)} ${query.limit}`);
          return value.call(target, query);
        };
      },
    });
    const input = await readTimelineInput(paged, {}, 0);
    const events = await inner.listEvents();
    assert.deepEqual(
      input.events,
      events.map((event) => timelineEvent(event, new Map())),
    );
    // The third is the held calls awaiting approval, one bounded read; the fourth the chain badge's
    // check of resolved operations against their decisions (every tool action, a page at a time).
    assert.deepEqual(
      asked,
      ["listEvents 1000", "listOperations 1000", "listOperations 10000", "listOperations 1000"],
      "each read is one page",
    );
  });

  it("keeps of each event only what the page draws, and the page is the one its whole events draw", async () => {
    const store = new MemoryControlPlaneStore();
    await runKnownHistory(store);
    const input = await readTimelineInput(store);
    const events = await store.listEvents();
    assert.ok(events.length > 0);
    for (const kept of input.events) {
      for (const dropped of ["event_id", "chain_digest", "execution_scope_ref", "phase_realization"])
        assert.ok(!Object.hasOwn(kept, dropped), `${dropped} is not kept`);
      assert.deepEqual(Object.keys(kept.temporal_contexts[0] ?? {}), ["observation_point"]);
    }
    const page = {
      operations: input.operations,
      schedulers: input.schedulers ?? [],
      storeUrl: "sqlite:/s.db",
    };
    assert.equal(
      renderTimelineHtml({ ...page, events: input.events }),
      renderTimelineHtml({ ...page, events }),
    );
  });

  it("shares equal strings across events without changing them or the records read", () => {
    const a = JSON.parse('{"x": "same", "__proto__": {"k": ["same", 1, null]}, "n": {"deep": ["same"]}}');
    const b = JSON.parse('{"x": "same", "y": "other"}');
    const before = [JSON.stringify(a), JSON.stringify(b)];
    const seen = new Map<string, string>();
    const shared = [shareStrings(a, seen), shareStrings(b, seen)];
    assert.deepEqual(shared, [a, b]);
    assert.ok(Object.hasOwn(shared[0], "__proto__"), "an own __proto__ key stays an own key");
    assert.deepEqual([JSON.stringify(a), JSON.stringify(b)], before);
    assert.deepEqual([...seen.keys()].sort(), ["__proto__", "deep", "k", "n", "other", "same", "x", "y"]);
  });

  it("reads a long history's operations in one listing, not one read each, and finds the same ones", async () => {
    assert.ok(LISTED_FROM > 1 && LISTED_FROM <= 100);
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    for (const query of [{}, { participantAddress: EXAMPLE.participant }]) {
      const oneByOne = counting(inner);
      const expected = await readTimelineInput(oneByOne.store, query, Number.POSITIVE_INFINITY);
      assert.ok(oneByOne.gets() >= 10, "read one by one below the threshold");
      assert.ok(expected.operations.length >= 10);
      const listed = counting(inner);
      const actual = await readTimelineInput(listed.store, query, 0);
      assert.equal(listed.gets(), 0, "no read per operation from the threshold on");
      assert.deepEqual(actual, expected);
    }
  });

  it("reads only the last N events and their operations for a bounded view, not the whole history", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const all = await inner.listEvents({ participantAddress: EXAMPLE.participant });
    const last = 3;
    assert.ok(all.length > 2 * last, "a history longer than the tail");
    let rows = 0;
    let listings = 0;
    const counted = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "listEvents")
          return async (query: object) => {
            const found = await value.call(target, query);
            rows += found.length;
            return found;
          };
        if (property === "listOperations")
          return (query: { state?: string }) => {
            if (query.state === undefined) listings += 1;
            return value.call(target, query);
          };
        return value.bind(target);
      },
    });
    const input = await readTimelineInput(counted, { participantAddress: EXAMPLE.participant }, 0, {
      lastEvents: last,
      chain: null,
    });
    assert.deepEqual(
      input.events,
      all.slice(-last).map((event) => timelineEvent(event, new Map())),
    );
    assert.equal(rows, last, "only the tail's events are read");
    assert.equal(listings, 0, "no listing of every operation");
    const whole = await readTimelineInput(inner, { participantAddress: EXAMPLE.participant }, 0, {
      chain: null,
    });
    const shown = new Set(input.events.map((e) => e.action_instance_id));
    assert.deepEqual(
      input.operations,
      whole.operations.filter((o) => shown.has(o.id)),
    );
  });

  it("reads an episode's operations one by one: a listing would hold every other episode's", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const [first] = await inner.listEvents();
    assert.ok(first);
    const episode = counting(inner);
    const input = await readTimelineInput(episode.store, { episodeId: first.episode_id }, 0);
    assert.ok(input.operations.length > 0);
    assert.equal(episode.gets(), input.operations.length);
  });

  it("tells the header whether the store's history chains verify, and the page shows it", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const input = await readTimelineInput(inner);
    assert.deepEqual(input.chain, {
      ok: true,
      events: (await inner.listEvents()).length,
      decisions: (await inner.getDecisionHead()).decisions,
    });
    assert.match(
      renderTimelineHtml(input),
      /data-chain="verified">History chain verified: \d+ events recomputed/,
    );
    // The same store with its third event's timestamp edited after it was committed, wherever it is read.
    const edited: MemoryControlPlaneStore = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "readSnapshot") return (work: (reads: unknown) => unknown) => work(edited);
        if (property !== "readChainPage" && property !== "listEvents")
          return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) =>
          ((await value.apply(target, args)) as HistoryEvent[]).map((e) =>
            e.sequence === 3 ? { ...e, timestamp: "2020-01-01T00:00:00.000000Z" } : e,
          );
      },
    });
    const broken = await readTimelineInput(edited);
    assert.equal(broken.chain?.ok, false);
    assert.match(
      renderTimelineHtml(broken),
      new RegExp(
        `data-chain="broken" role="alert">Evidence does not verify: chain broken: edited event: participant ${EXAMPLE.participant}, sequence 3: `,
      ),
    );
  });
  it("recomputes the chains of a whole history as it reads it, never reading the history again for the badge", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const asked = new Map<string, number>();
    const counted: MemoryControlPlaneStore = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "readSnapshot") return (work: (reads: unknown) => unknown) => work(counted);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          asked.set(String(property), (asked.get(String(property)) ?? 0) + 1);
          return value.apply(target, args);
        };
      },
    });
    const input = await readTimelineInput(counted);
    assert.deepEqual(input.chain, {
      ok: true,
      events: (await inner.listEvents()).length,
      decisions: (await inner.getDecisionHead()).decisions,
    });
    assert.equal(asked.get("readChainPage"), undefined, "the history read once");
    // A participant's history is not the whole history: the badge's chains are read on their own.
    asked.clear();
    const one = await readTimelineInput(counted, { participantAddress: EXAMPLE.participant });
    assert.equal(one.chain?.ok, true);
    assert.ok((asked.get("readChainPage") ?? 0) > 0);
  });
});

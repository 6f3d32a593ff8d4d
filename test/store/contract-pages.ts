import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import type { HistoryEventDraft } from "../../src/history/index.js";
import { eventPages, operationPages } from "../../src/store/index.js";
import { ROOT } from "../helpers/example.js";
import type { FixtureSource } from "./contract.js";
import { ALL, at, CASES, fill } from "./contract-operations.js";
import { closeCommit, event, invocation, P2, scheduler } from "./records.js";

const GOLDEN = join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl");

/** Commits the golden history for one participant and a few events for another, interleaved. */
async function fillHistory(fixture: FixtureSource): Promise<void> {
  const { store } = fixture();
  const golden = readFileSync(GOLDEN, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const { sequence: _sequence, ...draft } = JSON.parse(line) as HistoryEventDraft & { sequence: number };
      return draft;
    });
  const half = Math.ceil(golden.length / 2);
  const a = invocation();
  await store.openInvocation(a, scheduler({ attempts: 1, nextOrdinal: 2 }));
  await store.commitInvocation({ ...closeCommit(a), events: golden.slice(0, half) });
  const b = invocation({ id: "inv-b", participantAddress: P2 });
  await store.openInvocation(b, scheduler({ participantAddress: P2, attempts: 1, nextOrdinal: 2 }));
  await store.commitInvocation({
    ...closeCommit(b),
    events: [
      event(b, "action_attempted"),
      event(b, "state_transition_recorded"),
      event(b, "observation_emitted"),
    ],
  });
  const c = invocation({ id: "inv-c", ordinal: 1 });
  await store.openInvocation(c, scheduler({ attempts: 2, nextOrdinal: 3 }));
  await store.commitInvocation({ ...closeCommit(c), events: golden.slice(half) });
}

async function collect<T>(pages: AsyncIterable<T[]>): Promise<{ items: T[]; sizes: number[] }> {
  const items: T[] = [];
  const sizes: number[] = [];
  for await (const page of pages) {
    items.push(...page);
    sizes.push(page.length);
  }
  return { items, sizes };
}

/** Page reads: history after a sequence and operations after a cursor, so readers stream a store in bounded memory. */
export function pageCases(fixture: FixtureSource): void {
  it("reads history a page at a time: after a sequence, at most a limit, in commit order, with the filters", async () => {
    await fillHistory(fixture);
    const { store } = fixture();
    const all = await store.listEvents();
    assert.ok(all.length >= 10, "enough events for several pages");
    assert.deepEqual(
      await store.listEvents({ afterSequence: 3, limit: 4 }),
      all.filter((e) => e.sequence > 3).slice(0, 4),
    );
    assert.deepEqual(await store.listEvents({ limit: 0 }), []);
    assert.deepEqual(await store.listEvents({ afterSequence: all.length }), []);
    assert.deepEqual(await store.listEvents({ participantAddress: P2, afterSequence: 0, limit: 2 }), [
      ...all.filter((e) => e.participant_address === P2).slice(0, 2),
    ]);
    for (const query of [{}, { participantAddress: P2 }, { episodeId: all[0]?.episode_id as string }]) {
      const expected = await store.listEvents(query);
      for (const size of [1, 2, 3, 7, 1_000]) {
        const { items, sizes } = await collect(eventPages(store, query, size));
        assert.deepEqual(items, expected, `${JSON.stringify(query)} in pages of ${size}`);
        assert.ok(
          sizes.every((n) => n <= size && n > 0),
          `pages of ${size}: ${sizes.join(",")}`,
        );
      }
    }
  });

  it("reads only the last N matching events, from the end, still in commit order", async () => {
    await fillHistory(fixture);
    const { store } = fixture();
    const all = await store.listEvents();
    const p2 = all.filter((e) => e.participant_address === P2);
    assert.ok(p2.length >= 3, "enough events of P2");
    assert.deepEqual(await store.listEvents({ last: 3 }), all.slice(-3));
    assert.deepEqual(await store.listEvents({ participantAddress: P2, last: 2 }), p2.slice(-2));
    assert.deepEqual(await store.listEvents({ participantAddress: P2, last: 1_000 }), p2);
    assert.deepEqual(await store.listEvents({ last: 0 }), []);
    assert.deepEqual(await store.listEvents({ last: 4, limit: 2 }), all.slice(-4, -2));
    assert.deepEqual(
      await store.listEvents({ afterSequence: all.length - 2, last: 5 }),
      all.filter((e) => e.sequence > all.length - 2),
    );
  });

  it("refuses a page bound that is not a whole number from 0", async () => {
    const { store } = fixture();
    for (const bad of [-1, 1.5, Number.NaN]) {
      await assert.rejects(async () => store.listEvents({ afterSequence: bad }), RangeError, String(bad));
      await assert.rejects(async () => store.listEvents({ limit: bad }), RangeError, String(bad));
      await assert.rejects(async () => store.listEvents({ last: bad }), RangeError, String(bad));
    }
  });

  it("lists operations after a cursor, newest first: the next page after the entry given", async () => {
    await fill(fixture);
    const { store } = fixture();
    // Two tool actions share :03; the larger id comes first, so the smaller is the only one after it.
    const after = await store.listOperations({ before: { createdAt: at(3), id: "inv-a.tool-3" } });
    assert.deepEqual(
      after.map((o) => o.id),
      ["inv-a.tool-2", "inv-a.tool-1", "inv-a"],
    );
    assert.deepEqual(
      (await store.listOperations({ before: { createdAt: at(9), id: "" }, limit: 100 })).map((o) => o.id),
      ALL,
    );
    for (const [query, ids] of CASES) {
      for (const size of [1, 2, 3]) {
        const { items } = await collect(operationPages(store, { limit: 1_000, ...query }, size));
        assert.deepEqual(
          items.map((o) => o.id),
          ids,
          `${JSON.stringify(query)} in pages of ${size}`,
        );
      }
    }
  });
}

import assert from "node:assert/strict";
import { it } from "node:test";
import type { ResourceLedger, ResourceLogEntry, ResourceTransition } from "../../src/records/index.js";
import { LeaseLostError } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, invocation, P1, P2, scheduler } from "./records.js";

/** The ledger after one more transition, numbered as the runtime numbers it; the log keeps its last 64. */
function next(
  ledger: ResourceLedger,
  transition: ResourceTransition,
  operationId: string,
  tick: number,
): ResourceLedger {
  const seq = (ledger.events ?? 0) + 1;
  const entry: ResourceLogEntry = {
    seq,
    transition,
    operationId,
    tick,
    segment: 0,
    generation: 1,
    requested: { tokens: 5 },
    ...(transition === "commit" ? { measured: { tokens: 3 } } : {}),
    ...(transition === "throttle"
      ? { code: "runtime.participant-resource-throttled", capacityKind: "logical budget" as const }
      : {}),
  };
  return { ...ledger, log: [...ledger.log, entry].slice(-64), logged: ledger.logged + 1, events: seq };
}

const EMPTY: ResourceLedger = { generation: 1, budgets: {}, log: [], logged: 0, events: 0 };

/** Budget events (schema step 22): every ledger transition, recorded once with the write that made it. */
export function budgetEventCases(fixture: FixtureSource): void {
  it("records each transition once, in the write that made it, through every scheduler write", async () => {
    const { store } = fixture();
    assert.equal(await store.countBudgetEvents(), 0);
    assert.deepEqual(await store.listBudgetEvents({ limit: 10 }), []);
    const reserved = next(EMPTY, "reserve", "op-1", 1);
    await store.openInvocation(invocation({ id: "op-1" }), scheduler({ resources: reserved }));
    const committed = next(reserved, "commit", "op-1", 1);
    await store.commitInvocation(
      closeCommit(invocation({ id: "op-1" }), [], scheduler({ resources: committed })),
    );
    const throttled = next(committed, "throttle", "op-2", 2);
    await store.saveScheduler(scheduler({ resources: throttled }));
    // Writing the same ledger again (a continuation saved with no new transition) records nothing.
    await store.saveScheduler(scheduler({ resources: throttled, tick: 3 }));
    await store.recordDecision(
      { kind: "resume", subject: P1, operator: "ops", note: "", decided_at: "2025-01-02T00:00:00.000000Z" },
      [scheduler({ resources: throttled, tick: 4 })],
    );
    const events = await store.listBudgetEvents({ limit: 10 });
    assert.deepEqual(
      events.map((e) => [e.participantAddress, e.seq, e.entry.transition, e.entry.operationId]),
      [
        [P1, 1, "reserve", "op-1"],
        [P1, 2, "commit", "op-1"],
        [P1, 3, "throttle", "op-2"],
      ],
    );
    assert.deepEqual(events[1]?.entry.measured, { tokens: 3 });
    assert.equal(events[2]?.entry.capacityKind, "logical budget");
    assert.ok(events.every((e, i) => i === 0 || e.sequence > (events[i - 1]?.sequence ?? 0)));
    assert.equal(await store.countBudgetEvents(), 3);
  });

  it("keeps every event past the 64 a ledger's log lists, read a page at a time", async () => {
    const { store } = fixture();
    let ledger = EMPTY;
    for (let tick = 1; tick <= 150; tick += 1) {
      ledger = next(ledger, "throttle", `op-${tick}`, tick);
      await store.saveScheduler(scheduler({ resources: ledger, tick }));
    }
    assert.equal(ledger.log.length, 64);
    assert.equal(await store.countBudgetEvents(), 150);
    const ticks: number[] = [];
    for (let after = 0; ; ) {
      const page = await store.listBudgetEvents({ afterSequence: after, limit: 40 });
      if (page.length === 0) break;
      assert.ok(page.length <= 40);
      ticks.push(...page.map((e) => e.entry.tick));
      after = page.at(-1)?.sequence ?? after;
    }
    assert.deepEqual(
      ticks,
      Array.from({ length: 150 }, (_, i) => i + 1),
    );
    const last = await store.listBudgetEvents({ last: 3, limit: 3 });
    assert.deepEqual(
      last.map((e) => e.entry.tick),
      [148, 149, 150],
    );
  });

  it("filters by participant and counts each participant's events", async () => {
    const { store } = fixture();
    await store.saveScheduler(scheduler({ resources: next(EMPTY, "throttle", "a-1", 1) }));
    await store.saveScheduler(
      scheduler({ participantAddress: P2, resources: next(EMPTY, "throttle", "b-1", 1) }),
    );
    const two = next(next(EMPTY, "throttle", "a-1", 1), "throttle", "a-2", 2);
    await store.saveScheduler(scheduler({ resources: two }));
    assert.deepEqual(
      (await store.listBudgetEvents({ participantAddress: P1, limit: 10 })).map((e) => e.entry.operationId),
      ["a-1", "a-2"],
    );
    assert.deepEqual(
      (await store.listBudgetEvents({ participantAddress: P2, limit: 10 })).map((e) => e.entry.operationId),
      ["b-1"],
    );
    assert.equal(await store.countBudgetEvents(P1), 2);
    assert.equal(await store.countBudgetEvents(P2), 1);
    assert.equal(await store.countBudgetEvents(), 3);
  });

  it("records no event for a write the fence refuses", async () => {
    const { store } = fixture();
    const old = await store.acquireLease(P1, "host-a", 0);
    assert.ok(old);
    const taken = await store.acquireLease(P1, "host-b", 60_000, { replacing: "host-a" });
    assert.ok(taken);
    await assert.rejects(
      store.saveScheduler(scheduler({ resources: next(EMPTY, "throttle", "op-1", 1) }), {
        participantAddress: P1,
        token: old.token,
      }),
      LeaseLostError,
    );
    assert.equal(await store.countBudgetEvents(), 0);
  });

  it("refuses a page bound that is not a whole number from 0", async () => {
    const { store } = fixture();
    await assert.rejects(async () => store.listBudgetEvents({ limit: -1 }), RangeError);
    await assert.rejects(async () => store.listBudgetEvents({ afterSequence: 1.5, limit: 1 }), RangeError);
  });
}

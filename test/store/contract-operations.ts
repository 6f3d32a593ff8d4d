import assert from "node:assert/strict";
import { it } from "node:test";
import type { OperationQuery, ToolActionRecord } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, invocation, P1, P2, scheduler, toolAction } from "./records.js";

export const at = (second: number) => `2025-01-01T00:00:0${second}.000000Z`;

/**
 * Three invocations and seven tool actions in every operation state, two of them created at the
 * same instant (ties go to the larger id first):
 *   inv-a  P1 :01 succeeded   tool-1 :02 succeeded   tool-2 :03 indeterminate   tool-3 :03 withheld
 *   inv-b  P2 :04 failed      tool-1 :05 partial_success   tool-2 :06 failed
 *   inv-c  P1 :07 running     tool-1 :08 dispatched        tool-2 :08 admitted
 */
export async function fill(fixture: FixtureSource): Promise<void> {
  const { store } = fixture();
  const settled = (
    record: ToolActionRecord,
    settlement: NonNullable<ToolActionRecord["settlement"]>,
  ): ToolActionRecord => ({ ...record, phase: "settled", settlement });
  const a = invocation({ id: "inv-a", createdAt: at(1), updatedAt: at(1) });
  const b = invocation({ id: "inv-b", participantAddress: P2, createdAt: at(4), updatedAt: at(4) });
  const c = invocation({ id: "inv-c", ordinal: 2, createdAt: at(7), updatedAt: at(7) });
  const aTools = [
    toolAction(a, 1, { phase: "dispatched", createdAt: at(2), updatedAt: at(2) }),
    toolAction(a, 2, { phase: "dispatched", createdAt: at(3), updatedAt: at(3) }),
    toolAction(a, 3, { createdAt: at(3), updatedAt: at(3) }),
  ];
  const bTools = [
    toolAction(b, 1, { phase: "dispatched", createdAt: at(5), updatedAt: at(5) }),
    toolAction(b, 2, { phase: "dispatched", createdAt: at(6), updatedAt: at(6) }),
  ];
  const cTools = [
    toolAction(c, 1, { phase: "dispatched", createdAt: at(8), updatedAt: at(8) }),
    toolAction(c, 2, { createdAt: at(8), updatedAt: at(8) }),
  ];
  await store.openInvocation(a, scheduler());
  for (const t of aTools) await store.insertToolAction(t);
  const [a1, a2, a3] = aTools as [ToolActionRecord, ToolActionRecord, ToolActionRecord];
  await store.commitInvocation(
    closeCommit(a, [settled(a1, "succeeded"), settled(a2, "indeterminate"), settled(a3, "withheld")]),
  );
  await store.openInvocation(b, scheduler({ participantAddress: P2 }));
  for (const t of bTools) await store.insertToolAction(t);
  const [b1, b2] = bTools as [ToolActionRecord, ToolActionRecord];
  const bClose = closeCommit(b, [settled(b1, "partial_success"), settled(b2, "failed")]);
  await store.commitInvocation({ ...bClose, invocation: { ...bClose.invocation, state: "failed" } });
  await store.openInvocation(c, scheduler({ nextOrdinal: 3 }));
  for (const t of cTools) await store.insertToolAction(t);
}

/** Every operation, newest first. */
export const ALL = [
  "inv-c.tool-2",
  "inv-c.tool-1",
  "inv-c",
  "inv-b.tool-2",
  "inv-b.tool-1",
  "inv-b",
  "inv-a.tool-3",
  "inv-a.tool-2",
  "inv-a.tool-1",
  "inv-a",
];

/** Each query with the ids it must list, in order (a hand-written table, not a second implementation). */
export const CASES: readonly [OperationQuery, readonly string[]][] = [
  [{}, ALL],
  [{ state: "indeterminate" }, ["inv-a.tool-2"]],
  [{ state: "succeeded" }, ["inv-b.tool-1", "inv-a.tool-1", "inv-a"]],
  [{ state: "failed" }, ["inv-b.tool-2", "inv-b"]],
  [{ state: "running" }, ["inv-c.tool-1", "inv-c"]],
  [{ state: "accepted" }, ["inv-c.tool-2"]],
  [{ state: "cancelled" }, ["inv-a.tool-3"]],
  [{ kind: "scheduler_invocation" }, ["inv-c", "inv-b", "inv-a"]],
  [{ kind: "scheduler_invocation", state: "indeterminate" }, []],
  [{ kind: "tool_action", state: "succeeded" }, ["inv-b.tool-1", "inv-a.tool-1"]],
  [{ participantAddress: P2 }, ["inv-b.tool-2", "inv-b.tool-1", "inv-b"]],
  [
    { participantAddress: P1, since: at(3) },
    ["inv-c.tool-2", "inv-c.tool-1", "inv-c", "inv-a.tool-3", "inv-a.tool-2"],
  ],
  [{ since: at(8) }, ["inv-c.tool-2", "inv-c.tool-1"]],
  [{ since: "2025-01-01T00:00:09.000000Z" }, []],
  [{ limit: 3 }, ALL.slice(0, 3)],
  [{ state: "succeeded", limit: 2 }, ["inv-b.tool-1", "inv-a.tool-1"]],
  [{ participantAddress: P1, state: "succeeded", kind: "tool_action" }, ["inv-a.tool-1"]],
  [{ participantAddress: "participant:nobody" }, []],
];

/** `listOperations`: filters, newest-first order, ties, limits, and what each entry carries. */
export function operationCases(fixture: FixtureSource): void {
  it("finds operation ids by a prefix or a suffix, case-sensitively, bytewise ascending, at most limit", async () => {
    await fill(fixture);
    const { store } = fixture();
    assert.deepEqual(await store.findOperationIds("inv-b", 10), ["inv-b", "inv-b.tool-1", "inv-b.tool-2"]);
    assert.deepEqual(await store.findOperationIds("tool-2", 10), [
      "inv-a.tool-2",
      "inv-b.tool-2",
      "inv-c.tool-2",
    ]);
    assert.deepEqual(await store.findOperationIds("c.tool-1", 10), ["inv-c.tool-1"]);
    assert.equal((await store.findOperationIds("tool-1", 2)).length, 2);
    // Neither the middle of an id, nor another case, nor a LIKE pattern matches.
    for (const none of ["nv-", "INV-A", "inv%", "inv_a", "tool-", ""])
      assert.deepEqual(await store.findOperationIds(none, 10), [], none);
    assert.deepEqual(await store.findOperationIds("a longer fragment than any id in the store", 10), []);
  });

  it("reads many operations in one call, each as getOperation answers it, in the order asked", async () => {
    await fill(fixture);
    const { store } = fixture();
    const asked = ["inv-c.tool-2", "nobody", "inv-a", "inv-b.tool-1", "inv-a", "inv-c", "inv-a.tool-3", ""];
    const expected = await Promise.all(asked.map((id) => store.getOperation(id)));
    assert.deepEqual(await store.getOperations(asked), expected);
    assert.deepEqual(
      expected.map((o) => o?.id),
      ["inv-c.tool-2", undefined, "inv-a", "inv-b.tool-1", "inv-a", "inv-c", "inv-a.tool-3", undefined],
    );
    assert.deepEqual(await store.getOperations([]), []);
    assert.deepEqual(await store.getOperations(["nobody", "inv-"]), [undefined, undefined]);
  });

  it("reads many operations whose ids quote, escape and leave the basic plane", async () => {
    const { store } = fixture();
    const ids = ['inv "q"', "inv \\ back", "inv \u00e9 \ud83d\ude00", "inv ' ) OR 1=1 --", "inv ,]["];
    for (const [k, id] of ids.entries()) {
      const inv = invocation({ id, createdAt: at(k + 1), updatedAt: at(k + 1) });
      await store.openInvocation(inv, scheduler({ nextOrdinal: k + 2 }));
      await store.insertToolAction(toolAction(inv, 1));
    }
    const asked = ids.flatMap((id) => [`${id}.tool-1`, id]);
    const read = await store.getOperations(asked);
    assert.deepEqual(
      read.map((o) => o?.id),
      asked,
    );
    assert.deepEqual(read, await Promise.all(asked.map((id) => store.getOperation(id))));
  });

  it("lists operations newest first, filtered by participant, state, kind, time and limit", async () => {
    await fill(fixture);
    const { store } = fixture();
    for (const [query, ids] of CASES) {
      const listed = await store.listOperations(query);
      assert.deepEqual(
        listed.map((o) => o.id),
        ids,
        JSON.stringify(query),
      );
    }
  });

  it("each entry is the operation view with its participant and creation time", async () => {
    await fill(fixture);
    const { store } = fixture();
    const listed = await store.listOperations({ participantAddress: P2 });
    for (const entry of listed) {
      const { participantAddress, createdAt, ...operation } = entry;
      assert.deepEqual(operation, await store.getOperation(entry.id));
      assert.equal(participantAddress, P2);
      assert.equal(createdAt, entry.id === "inv-b" ? at(4) : entry.id === "inv-b.tool-1" ? at(5) : at(6));
    }
    assert.equal(listed.length, 3);
  });

  it("lists 50 by default, newest first", async () => {
    const { store } = fixture();
    const inv = invocation({ id: "inv-many", createdAt: at(1), updatedAt: at(1) });
    await store.openInvocation(inv, scheduler());
    for (let n = 1; n <= 60; n += 1) {
      const created = `2025-01-01T00:01:${String(n).padStart(2, "0")}.000000Z`;
      await store.insertToolAction(toolAction(inv, n, { createdAt: created, updatedAt: created }));
    }
    const listed = await store.listOperations();
    assert.equal(listed.length, 50);
    assert.deepEqual(
      listed.map((o) => o.id),
      Array.from({ length: 50 }, (_, i) => `inv-many.tool-${60 - i}`),
    );
  });
}

/** Refusal counts travel with the invocation's close (docs/design.md §10). */
export function refusalCountCases(fixture: FixtureSource): void {
  it("keeps an invocation's refusal counts with its close and shows them on its operation", async () => {
    const { store } = fixture();
    const inv = invocation({ createdAt: at(1), updatedAt: at(1) });
    await store.openInvocation(inv, scheduler());
    assert.equal((await store.getInvocation(inv.id))?.refusals, undefined);
    const refusals = { request_invalid: 2, target_outside_binding: 1 };
    const close = closeCommit(inv);
    await store.commitInvocation({ ...close, invocation: { ...close.invocation, refusals } });
    assert.deepEqual((await store.getInvocation(inv.id))?.refusals, refusals);
    assert.deepEqual((await store.getOperation(inv.id))?.refusals, refusals);
    assert.deepEqual((await store.listOperations())[0]?.refusals, refusals);
    assert.equal((await store.getInvocation(inv.id))?.refusedCalls, undefined);
  });

  it("keeps the refused calls' code, time, tool and call with the counts", async () => {
    const { store } = fixture();
    const inv = invocation({ createdAt: at(1), updatedAt: at(1) });
    await store.openInvocation(inv, scheduler());
    const refusals = { tool_not_mapped: 1, target_outside_binding: 1 };
    const refusedCalls = [
      { code: "tool_not_mapped", at: at(2), tool: "drop_tables", call: "gateway" },
      { code: "target_outside_binding", at: at(3), call: "admit" },
    ];
    const close = closeCommit(inv);
    await store.commitInvocation({ ...close, invocation: { ...close.invocation, refusals, refusedCalls } });
    const stored = await store.getInvocation(inv.id);
    assert.deepEqual(stored?.refusals, refusals);
    assert.deepEqual(stored?.refusedCalls, refusedCalls);
    assert.deepEqual((await store.getOperation(inv.id))?.refusedCalls, refusedCalls);
    assert.deepEqual((await store.listOperations())[0]?.refusedCalls, refusedCalls);
  });
}

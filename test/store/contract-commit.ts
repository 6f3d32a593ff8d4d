import assert from "node:assert/strict";
import { it } from "node:test";
import type { HistoryEvent, HistoryEventDraft } from "../../src/history/index.js";
import { chainDigest, chainGenesis, UNANCHORED } from "../../src/records/index.js";
import {
  type InvocationCommit,
  type InvocationRecord,
  MemoryControlPlaneStore,
  StoreConflictError,
} from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import {
  closeCommit,
  event,
  invocation,
  P1,
  P2,
  scheduler,
  toolAction,
  triple,
  unchained,
} from "./records.js";

function committed(drafts: readonly HistoryEventDraft[], firstSequence: number): HistoryEvent[] {
  return drafts.map((draft, i) => ({ ...draft, sequence: firstSequence + i }));
}

/** `commitInvocation` all-or-nothing, history order and history filters. */
export function commitCases(fixture: FixtureSource): void {
  it("commits the invocation, settlements, events and scheduler together", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    const dispatched = toolAction(inv, 1, { phase: "dispatched" });
    const admitted = toolAction(inv, 2);
    await store.insertToolAction(dispatched);
    await store.insertToolAction(admitted);
    const settled = [
      { ...dispatched, phase: "settled" as const, settlement: "succeeded" as const, evidenceRefs: ["ev:1"] },
      { ...admitted, phase: "settled" as const, settlement: "withheld" as const },
    ];
    const toolEvents = [
      event(inv, "action_attempted", {
        event_id: "t1",
        action_instance_id: dispatched.id,
        invocation_tool_context: {
          invocation_action_instance_id: inv.id,
          invocation_action_contract_address: inv.actionContractAddress,
          tool_affordance_address: "affordance:green/portal-client",
          tool_call_id: dispatched.toolCallId,
          admission_ordinal: 1,
          settlement: "succeeded",
          execution_scope_ref: inv.executionScopeRef,
          execution_generation: inv.executionGeneration,
        },
      }),
    ];
    const commit = {
      ...closeCommit(inv, settled, scheduler({ attempts: 1, nextOrdinal: 2 })),
      events: [...toolEvents, ...triple(inv)],
    };
    await store.commitInvocation(commit);
    assert.deepEqual(await store.getInvocation(inv.id), commit.invocation);
    assert.deepEqual(await store.listToolActions({ invocationId: inv.id }), settled);
    assert.deepEqual(unchained(await store.listEvents()), committed(commit.events, 1));
    assert.deepEqual(await store.getScheduler(P1, inv.policyAddress), commit.scheduler);
    assert.deepEqual(await store.listOpenInvocations(), []);
    assert.equal((await store.getOperation(inv.id))?.state, "succeeded");
  });

  it("commits several invocations in one transaction, in order, or none of them", async () => {
    const { store } = fixture();
    const first = invocation({ id: "inv-1", ordinal: 1 });
    const second = invocation({ id: "inv-2", ordinal: 2 });
    const closed = invocation({ id: "inv-3", ordinal: 3 });
    for (const inv of [first, second, closed]) await store.openInvocation(inv, scheduler());
    await store.commitInvocation(closeCommit(closed));
    const before = await store.listEvents();
    await assert.rejects(
      store.commitInvocations([
        { ...closeCommit(first), events: triple(first) },
        { ...closeCommit(closed), events: triple(closed) },
      ]),
      StoreConflictError,
    );
    assert.deepEqual(await store.listEvents(), before, "a batch with one closed invocation writes nothing");
    assert.equal((await store.getInvocation(first.id))?.state, "running");
    await store.commitInvocations([
      { ...closeCommit(first), events: triple(first) },
      { ...closeCommit(second), events: triple(second) },
    ]);
    const ids = (await store.listEvents()).slice(before.length).map((e) => e.action_instance_id);
    assert.deepEqual(ids, [first.id, first.id, first.id, second.id, second.id, second.id]);
    assert.deepEqual(
      (await store.listOpenInvocations()).map((i) => i.id),
      [],
    );
  });

  it("takes closes from a generator as it writes, numbering and chaining them as from an array", async () => {
    const { store } = fixture();
    const reference = new MemoryControlPlaneStore();
    // More closes than one PostgreSQL statement takes (500), and a participant with a stored chain
    // that first appears in the second statement's closes.
    const batch = generatedBatch();
    // In each statement's closes, a stored tool action settles and one never stored is added whole.
    const stored = new Map(
      [3, 505].map((k) => {
        const inv = batch.closed[k] as InvocationRecord;
        return [inv.id, toolAction(inv, 1, { phase: "dispatched" })] as const;
      }),
    );
    const close = (inv: InvocationRecord): InvocationCommit => {
      const held = stored.get(inv.id);
      if (held === undefined) return closeCommit(inv);
      const added = toolAction(inv, 2, { phase: "settled", settlement: "withheld" });
      return closeCommit(inv, [{ ...held, phase: "settled", settlement: "succeeded" }, added]);
    };
    for (const s of [store, reference]) {
      for (const inv of batch.opened)
        await s.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
      for (const action of stored.values()) await s.insertToolAction(action);
      await s.commitInvocation(closeCommit(batch.earlier));
    }
    let taken = 0;
    function* closes(): Generator<InvocationCommit> {
      for (const inv of batch.closed) {
        taken += 1;
        yield close(inv);
      }
    }
    await store.commitInvocations(closes());
    await reference.commitInvocations(batch.closed.map(close));
    assert.equal(taken, batch.closed.length);
    assert.deepEqual(await store.listToolActions({}), await reference.listToolActions({}));
    const settled = await store.listToolActions({ phase: "settled" });
    assert.deepEqual(
      settled.map((a) => a.settlement),
      ["succeeded", "withheld", "succeeded", "withheld"],
    );
    const events = await store.listEvents();
    assert.deepEqual(
      events.map((e) => e.sequence),
      events.map((_, i) => i + 1),
    );
    assert.deepEqual(events, await reference.listEvents());
    assert.deepEqual(await store.listChainHeads(), await reference.listChainHeads());
    assert.deepEqual(await store.listOpenInvocations(), []);
  });

  it("writes nothing when building a close throws after earlier closes were taken, and stays usable", async () => {
    const { store } = fixture();
    const batch = generatedBatch();
    for (const inv of batch.opened)
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    await store.commitInvocation(closeCommit(batch.earlier));
    const before = await store.listEvents();
    const heads = await store.listChainHeads();
    const broken = batch.closed.length - 3;
    function* closes(): Generator<InvocationCommit> {
      for (const [k, inv] of batch.closed.entries()) {
        if (k === broken) throw new Error("no scheduler record for the participant");
        yield closeCommit(inv);
      }
    }
    await assert.rejects(store.commitInvocations(closes()), /no scheduler record/);
    assert.deepEqual(await store.listEvents(), before);
    assert.deepEqual(await store.listChainHeads(), heads);
    assert.equal((await store.listOpenInvocations()).length, batch.closed.length);
    await store.commitInvocations(batch.closed.map((inv) => closeCommit(inv)));
    assert.equal((await store.listEvents()).length, before.length + 3 * batch.closed.length);
  });

  it("refuses to commit an invocation that is not open, writing nothing", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    await store.commitInvocation(closeCommit(inv));
    const before = await store.listEvents();
    const failedAgain = { ...closeCommit(inv), invocation: { ...inv, state: "failed" as const } };
    await assert.rejects(store.commitInvocation(failedAgain), StoreConflictError);
    await assert.rejects(
      store.commitInvocation(closeCommit(invocation({ id: "inv-unknown" }))),
      StoreConflictError,
    );
    assert.deepEqual(await store.listEvents(), before);
    assert.equal((await store.getInvocation(inv.id))?.state, "succeeded");
  });

  it("leaves nothing half-written when a commit conflicts part-way", async () => {
    const { store } = fixture();
    const inv = invocation();
    const openScheduler = scheduler({ attempts: 1 });
    await store.openInvocation(inv, openScheduler);
    const first = toolAction(inv, 1, { phase: "dispatched" });
    await store.insertToolAction(first);
    const settledFirst = { ...first, phase: "settled" as const, settlement: "succeeded" as const };
    const duplicateCall = toolAction(inv, 2, {
      toolCallId: first.toolCallId,
      phase: "settled",
      settlement: "withheld",
    });
    const commit = closeCommit(
      inv,
      [settledFirst, duplicateCall],
      scheduler({ attempts: 1, nextOrdinal: 9 }),
    );
    await assert.rejects(store.commitInvocation(commit), StoreConflictError);
    assert.deepEqual(await store.getInvocation(inv.id), inv);
    assert.deepEqual(await store.getToolAction(first.id), first);
    assert.equal(await store.getToolAction(duplicateCall.id), undefined);
    assert.deepEqual(unchained(await store.listEvents()), []);
    assert.deepEqual(await store.getScheduler(P1, inv.policyAddress), openScheduler);
    await store.commitInvocation(closeCommit(inv, [settledFirst]));
    assert.deepEqual(unchained(await store.listEvents()), committed(triple(inv), 1));
  });

  it("writes no invocation of a batch when a later one repeats a tool-call key", async () => {
    const { store } = fixture();
    const first = invocation({ id: "inv-1", ordinal: 1 });
    const second = invocation({ id: "inv-2", ordinal: 2 });
    for (const inv of [first, second]) await store.openInvocation(inv, scheduler());
    const held = toolAction(second, 1, { phase: "dispatched" });
    await store.insertToolAction(held);
    const settledFirst = toolAction(first, 1, { phase: "settled", settlement: "withheld" });
    const duplicate = toolAction(second, 2, {
      toolCallId: held.toolCallId,
      phase: "settled",
      settlement: "withheld",
    });
    const batch = [
      { ...closeCommit(first, [settledFirst], scheduler({ nextOrdinal: 2 })), events: triple(first) },
      { ...closeCommit(second, [duplicate], scheduler({ nextOrdinal: 3 })), events: triple(second) },
    ];
    await assert.rejects(store.commitInvocations(batch), StoreConflictError);
    assert.deepEqual(await store.getInvocation(first.id), first, "the first invocation stays open");
    assert.equal(await store.getToolAction(settledFirst.id), undefined);
    assert.equal(await store.getToolAction(duplicate.id), undefined);
    assert.deepEqual(unchained(await store.listEvents()), []);
    assert.deepEqual(await store.getScheduler(P1, first.policyAddress), scheduler());
    assert.deepEqual(
      (await store.listOpenInvocations()).map((i) => i.id),
      [first.id, second.id],
    );
  });

  it("refuses a batch that closes one invocation twice, writing nothing", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    await assert.rejects(store.commitInvocations([closeCommit(inv), closeCommit(inv)]), StoreConflictError);
    assert.deepEqual(await store.getInvocation(inv.id), inv);
    assert.deepEqual(unchained(await store.listEvents()), []);
  });

  it("numbers events in commit order across commits, without gaps", async () => {
    const { store } = fixture();
    const a = invocation({ id: "inv-a" });
    const b = invocation({ id: "inv-b", participantAddress: P2 });
    const c = invocation({ id: "inv-c", ordinal: 2 });
    for (const inv of [a, b, c])
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    await store.commitInvocation(closeCommit(b));
    await assert.rejects(store.commitInvocation(closeCommit(b)), StoreConflictError);
    await store.commitInvocation(closeCommit(c));
    await store.commitInvocation(closeCommit(a));
    const events = unchained(await store.listEvents());
    assert.deepEqual(events, [
      ...committed(triple(b), 1),
      ...committed(triple(c), 4),
      ...committed(triple(a), 7),
    ]);
  });

  it("filters history by participant and episode, in commit order", async () => {
    const { store } = fixture();
    const a = invocation({ id: "inv-a", episodeId: "episode-1" });
    const b = invocation({ id: "inv-b", participantAddress: P2, episodeId: "episode-1" });
    const c = invocation({ id: "inv-c", episodeId: "episode-2", ordinal: 2 });
    for (const inv of [a, b, c])
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    for (const inv of [a, b, c]) await store.commitInvocation(closeCommit(inv));
    const all = unchained(await store.listEvents());
    assert.equal(all.length, 9);
    const ofA = committed(triple(a), 1);
    const ofB = committed(triple(b), 4);
    const ofC = committed(triple(c), 7);
    assert.deepEqual(unchained(await store.listEvents({ participantAddress: P1 })), [...ofA, ...ofC]);
    assert.deepEqual(unchained(await store.listEvents({ episodeId: "episode-1" })), [...ofA, ...ofB]);
    assert.deepEqual(
      unchained(await store.listEvents({ participantAddress: P1, episodeId: "episode-2" })),
      ofC,
    );
    assert.deepEqual(
      unchained(await store.listEvents({ participantAddress: P2, episodeId: "episode-2" })),
      [],
    );
    assert.deepEqual(unchained(await store.listEvents({})), all);
  });

  it("stores each event exactly as drafted, key order included", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    const draft = event(inv, "observation_emitted", {
      observation_status: "orphaned_action",
      action_result: {
        status: "failed",
        participant_address: inv.participantAddress,
        episode_id: inv.episodeId,
        action_instance_id: inv.id,
        action_contract_address: inv.actionContractAddress,
        observation_point: inv.observationPoint,
        failure_class: "lost",
        evidence_refs: ["ev:ü/1", 'ev:"q"'],
      },
    });
    await store.commitInvocation({ ...closeCommit(inv), events: [draft] });
    const [stored] = unchained(await store.listEvents());
    assert.equal(JSON.stringify(stored), JSON.stringify({ ...draft, sequence: 1 }));
  });

  it("keeps the events of several closes as drafted, with tabs, newlines and backslashes, each chained", async () => {
    const { store } = fixture();
    // What a bulk copy's text format must escape, in the key columns and in the bodies.
    const odd = "tab\there, line\nand\r back\\slash \\N \\.";
    const first = invocation({ id: `inv\t1\\x`, ordinal: 1, episodeId: `episode\n${odd}` });
    const second = invocation({ id: "inv-2", ordinal: 2 });
    for (const inv of [first, second]) await store.openInvocation(inv, scheduler());
    const drafts = [
      ...triple(first).map((d) => ({ ...d, note: odd })),
      ...triple(second).map((d) => ({ ...d, note: "\\." })),
    ] as HistoryEventDraft[];
    await store.commitInvocations([
      { ...closeCommit(first), events: drafts.slice(0, 3) },
      { ...closeCommit(second), events: drafts.slice(3) },
    ]);
    const stored = await store.listEvents();
    assert.deepEqual(
      unchained(stored).map((e) => JSON.stringify(e)),
      committed(drafts, 1).map((e) => JSON.stringify(e)),
    );
    let previous = chainGenesis(P1, UNANCHORED);
    for (const e of stored) {
      assert.equal(e.chain_digest, chainDigest(previous, e));
      previous = e.chain_digest as string;
    }
  });
}

/**
 * 520 invocations to close in one batch (P1's, then from the 511th on P2's), and one of P2's to close
 * before it, so P2's chain has a stored head when the batch first reaches P2.
 */
function generatedBatch(): {
  opened: InvocationRecord[];
  earlier: InvocationRecord;
  closed: InvocationRecord[];
} {
  const closed = Array.from({ length: 520 }, (_, k) =>
    invocation({
      id: `inv-${String(k).padStart(4, "0")}`,
      ordinal: k + 1,
      participantAddress: k < 510 ? P1 : P2,
    }),
  );
  const earlier = invocation({ id: "inv-earlier", participantAddress: P2, ordinal: 1000 });
  return { opened: [earlier, ...closed], earlier, closed };
}

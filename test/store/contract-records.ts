import assert from "node:assert/strict";
import { it } from "node:test";
import { operationFromInvocation, operationFromToolAction } from "../../src/operations/index.js";
import { StoreConflictError } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { clock, closeCommit, invocation, P1, P2, scheduler, toolAction } from "./records.js";

/** Clocks, schedulers, invocations, tool actions, resolutions and operation views. */
export function recordCases(fixture: FixtureSource): void {
  it("saves, replaces and reads clocks", async () => {
    const { store } = fixture();
    assert.equal(await store.getClock("clock:shared"), undefined);
    await store.saveClock(clock());
    assert.deepEqual(await store.getClock("clock:shared"), clock());
    await store.saveClock(clock({ tick: 9, paused: true, generation: 2 }));
    assert.deepEqual(await store.getClock("clock:shared"), clock({ tick: 9, paused: true, generation: 2 }));
  });

  it("saves, replaces and lists schedulers in first-saved order", async () => {
    const { store } = fixture();
    assert.equal(await store.getScheduler(P1, "policy:none"), undefined);
    await store.saveScheduler(scheduler({ participantAddress: P2 }));
    await store.saveScheduler(scheduler());
    const stopped = scheduler({ lifecycle: "stopped", stopReason: "tool_action_indeterminate", attempts: 2 });
    await store.saveScheduler(stopped);
    assert.deepEqual(await store.getScheduler(P1, stopped.policyAddress), stopped);
    assert.deepEqual(await store.listSchedulers(), [scheduler({ participantAddress: P2 }), stopped]);
    await store.saveScheduler(scheduler({ cursor: 4 }));
    assert.deepEqual(await store.getScheduler(P1, stopped.policyAddress), scheduler({ cursor: 4 }));
  });

  it("keeps a scheduler's attempt bound and control fingerprint, and a harness_error stop", async () => {
    const { store } = fixture();
    const identified = scheduler({
      lifecycle: "stopped",
      stopReason: "harness_error",
      maxActionAttempts: 120,
      streamFingerprint: "0123456789abcdef0123456789abcdef",
    });
    await store.saveScheduler(identified);
    assert.deepEqual(await store.getScheduler(P1, identified.policyAddress), identified);
    assert.deepEqual(await store.listSchedulers(), [identified]);
    // A record without them (v1, or written before schema step 7) reads back without them.
    await store.saveScheduler(scheduler());
    assert.deepEqual(await store.getScheduler(P1, identified.policyAddress), scheduler());
  });

  it("opens an invocation together with its scheduler and refuses a duplicate id", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1, nextOrdinal: 2 }));
    assert.deepEqual(await store.getInvocation(inv.id), inv);
    assert.deepEqual(
      await store.getScheduler(P1, inv.policyAddress),
      scheduler({ attempts: 1, nextOrdinal: 2 }),
    );
    await assert.rejects(store.openInvocation(inv, scheduler({ attempts: 5 })), StoreConflictError);
    assert.deepEqual(
      await store.getScheduler(P1, inv.policyAddress),
      scheduler({ attempts: 1, nextOrdinal: 2 }),
    );
    assert.equal(await store.getInvocation("inv-missing"), undefined);
  });

  it("lists open invocations in opening order, optionally for one participant", async () => {
    const { store } = fixture();
    const a = invocation({ id: "inv-b" });
    const b = invocation({ id: "inv-a", participantAddress: P2 });
    const c = invocation({ id: "inv-c", ordinal: 2 });
    for (const inv of [a, b, c])
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    assert.deepEqual(await store.listOpenInvocations(), [a, b, c]);
    assert.deepEqual(await store.listOpenInvocations(P1), [a, c]);
    assert.deepEqual(await store.listOpenInvocations("participant:nobody"), []);
  });

  it("inserts tool action claims and refuses a duplicate id or tool call", async () => {
    const { store } = fixture();
    const inv = invocation();
    const other = invocation({ id: "inv-b" });
    await store.openInvocation(inv, scheduler());
    await store.openInvocation(other, scheduler());
    const first = toolAction(inv, 1);
    await store.insertToolAction(first);
    assert.deepEqual(await store.getToolAction(first.id), first);
    await assert.rejects(store.insertToolAction({ ...first, toolCallId: "call-9" }), StoreConflictError);
    await assert.rejects(
      store.insertToolAction(toolAction(inv, 2, { toolCallId: "call-1" })),
      StoreConflictError,
    );
    assert.equal(await store.getToolAction(toolAction(inv, 2).id), undefined);
    await store.insertToolAction(toolAction(other, 1));
    assert.deepEqual(await store.listToolActions({ invocationId: inv.id }), [first]);
  });

  it("replaces a tool action only while it is in the expected phase", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    const admitted = toolAction(inv, 1);
    await store.insertToolAction(admitted);
    const dispatched = { ...admitted, phase: "dispatched" as const, updatedAt: "2025-01-01T00:00:05.000Z" };
    assert.equal(await store.updateToolAction(dispatched, "admitted"), true);
    const settled = {
      ...dispatched,
      phase: "settled" as const,
      settlement: "failed" as const,
      failureClass: "timeout",
      evidenceRefs: ["evidence:log/1", "evidence:log/2"],
    };
    assert.equal(await store.updateToolAction(settled, "admitted"), false);
    assert.deepEqual(await store.getToolAction(admitted.id), dispatched);
    assert.equal(await store.updateToolAction(settled, "dispatched"), true);
    assert.deepEqual(await store.getToolAction(admitted.id), settled);
    assert.equal(await store.updateToolAction(toolAction(inv, 7), "admitted"), false);
    assert.equal(await store.getToolAction(toolAction(inv, 7).id), undefined);
  });

  it("lists tool actions by invocation, participant and phase in admission order", async () => {
    const { store } = fixture();
    const a = invocation({ id: "inv-a" });
    const b = invocation({ id: "inv-b", participantAddress: P2 });
    await store.openInvocation(b, scheduler({ participantAddress: P2 }));
    await store.openInvocation(a, scheduler());
    const a2 = toolAction(a, 2, { phase: "dispatched" });
    const b1 = toolAction(b, 1);
    const a1 = toolAction(a, 1);
    const a3 = toolAction(a, 3);
    for (const action of [a2, b1, a1, a3]) await store.insertToolAction(action);
    assert.deepEqual(await store.listToolActions({}), [a1, a2, a3, b1]);
    assert.deepEqual(await store.listToolActions({ invocationId: a.id }), [a1, a2, a3]);
    assert.deepEqual(await store.listToolActions({ participantAddress: P2 }), [b1]);
    assert.deepEqual(await store.listToolActions({ phase: "admitted" }), [a1, a3, b1]);
    assert.deepEqual(await store.listToolActions({ invocationId: a.id, phase: "dispatched" }), [a2]);
    assert.deepEqual(await store.listToolActions({ participantAddress: P1, phase: "settled" }), []);
  });

  it("derives operation views from invocations and tool actions", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    assert.deepEqual(await store.getOperation(inv.id), {
      id: inv.id,
      domain: "participant",
      diagnostics: [],
      changedAddresses: [inv.participantAddress],
      parentId: null,
      kind: "scheduler_invocation",
      state: "running",
      startedAt: inv.startedAt,
      updatedAt: inv.updatedAt,
    });
    const action = toolAction(inv, 1);
    await store.insertToolAction(action);
    assert.equal((await store.getOperation(action.id))?.state, "accepted");
    const dispatched = { ...action, phase: "dispatched" as const };
    await store.updateToolAction(dispatched, "admitted");
    assert.deepEqual(await store.getOperation(action.id), operationFromToolAction(dispatched));
    assert.equal((await store.getOperation(action.id))?.state, "running");
    const withheld = { ...dispatched, phase: "settled" as const, settlement: "withheld" as const };
    await store.updateToolAction(withheld, "dispatched");
    assert.deepEqual(await store.getOperation(action.id), {
      id: action.id,
      domain: "participant",
      diagnostics: [
        {
          code: "operation.withheld",
          domain: "participant",
          address: inv.participantAddress,
          message: "withheld before dispatch",
          severity: "warning",
        },
      ],
      changedAddresses: [inv.participantAddress],
      parentId: inv.id,
      kind: "tool_action",
      state: "cancelled",
      settlement: "withheld",
      admittedAt: action.admittedAt,
      updatedAt: action.updatedAt,
    });
    assert.deepEqual(await store.getOperation(inv.id), operationFromInvocation(inv));
    assert.equal(await store.getOperation("no-such-operation"), undefined);
  });

  it("keeps every record time: invocation start and end, tool-action admission, dispatch and settlement", async () => {
    const { store } = fixture();
    const inv = invocation({ startedAt: "2025-01-01T00:00:00.000001Z" });
    await store.openInvocation(inv, scheduler());
    const admitted = toolAction(inv, 1, { admittedAt: "2025-01-01T00:00:00.250002Z" });
    const withheld = toolAction(inv, 2, { admittedAt: "2025-01-01T00:00:00.300003Z" });
    await store.insertToolAction(admitted);
    await store.insertToolAction(withheld);
    const dispatched = {
      ...admitted,
      phase: "dispatched" as const,
      dispatchedAt: "2025-01-01T00:00:00.500004Z",
    };
    assert.equal(await store.updateToolAction(dispatched, "admitted"), true);
    assert.deepEqual(await store.getToolAction(admitted.id), dispatched);
    const settled = {
      ...dispatched,
      phase: "settled" as const,
      settlement: "succeeded" as const,
      settledAt: "2025-01-01T00:00:01.750005Z",
    };
    const cancelled = {
      ...withheld,
      phase: "settled" as const,
      settlement: "withheld" as const,
      settledAt: "2025-01-01T00:00:01.800006Z",
    };
    const closed = { ...inv, state: "succeeded" as const, endedAt: "2025-01-01T00:00:02.000007Z" };
    await store.commitInvocation({ ...closeCommit(inv, [settled, cancelled]), invocation: closed });
    assert.deepEqual(await store.getInvocation(inv.id), closed);
    assert.deepEqual(await store.listToolActions({ invocationId: inv.id }), [settled, cancelled]);
    const operation = await store.getOperation(inv.id);
    assert.deepEqual([operation?.startedAt, operation?.endedAt], [inv.startedAt, closed.endedAt]);
    const tool = await store.getOperation(admitted.id);
    assert.deepEqual(
      [tool?.admittedAt, tool?.dispatchedAt, tool?.settledAt],
      [admitted.admittedAt, dispatched.dispatchedAt, settled.settledAt],
    );
    const never = await store.getOperation(withheld.id);
    assert.deepEqual(
      [never?.admittedAt, never?.dispatchedAt, never?.settledAt],
      [withheld.admittedAt, undefined, cancelled.settledAt],
    );
  });

  it("keeps why an action was withheld before dispatch, in the record and its operation", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    const admitted = toolAction(inv, 1);
    const plain = toolAction(inv, 2);
    await store.insertToolAction(admitted);
    await store.insertToolAction(plain);
    const withheld = {
      ...admitted,
      phase: "settled" as const,
      settlement: "withheld" as const,
      withheldReason: "arguments_rejected",
      settledAt: "2025-01-01T00:00:01.000001Z",
    };
    assert.equal(await store.updateToolAction(withheld, "admitted"), true);
    assert.deepEqual(await store.getToolAction(admitted.id), withheld);
    assert.equal((await store.getOperation(admitted.id))?.withheldReason, "arguments_rejected");
    const closedPlain = { ...plain, phase: "settled" as const, settlement: "withheld" as const };
    await store.commitInvocation({ ...closeCommit(inv, [withheld, closedPlain]), invocation: inv });
    assert.deepEqual(await store.listToolActions({ invocationId: inv.id }), [withheld, closedPlain]);
    assert.equal((await store.getOperation(plain.id))?.withheldReason, undefined);
  });

  it("records a resolution only on an indeterminate, unresolved tool action", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    const unknown = toolAction(inv, 1, {
      phase: "settled",
      settlement: "indeterminate",
      unknownReason: "harness lost the tool process",
    });
    const succeeded = toolAction(inv, 2, { phase: "settled", settlement: "succeeded" });
    await store.insertToolAction(unknown);
    await store.insertToolAction(succeeded);
    const confirmed = {
      resolution: "effect_confirmed" as const,
      note: "portal audit shows the write",
      resolvedAt: "2025-01-02T00:00:00.000Z",
    };
    const decided = {
      kind: "resolve" as const,
      subject: unknown.id,
      operator: "alice",
      note: confirmed.note,
      decided_at: confirmed.resolvedAt,
    };
    assert.equal(await store.recordResolution(succeeded.id, confirmed, decided), false);
    assert.equal(await store.recordResolution("no-such-action", confirmed, decided), false);
    assert.equal(await store.recordResolution(unknown.id, confirmed, decided), true);
    const resolved = { ...unknown, resolution: confirmed, updatedAt: confirmed.resolvedAt };
    assert.deepEqual(await store.getToolAction(unknown.id), resolved);
    const again = {
      ...confirmed,
      resolution: "effect_absent" as const,
      resolvedAt: "2025-01-03T00:00:00.000Z",
    };
    assert.equal(await store.recordResolution(unknown.id, again, decided), false);
    assert.deepEqual(await store.getToolAction(unknown.id), resolved);
    assert.deepEqual(await store.getOperation(unknown.id), {
      id: unknown.id,
      domain: "participant",
      diagnostics: [
        {
          code: "operation.effects-unknown",
          domain: "participant",
          address: inv.participantAddress,
          message: "effects unknown: harness lost the tool process",
          severity: "info",
        },
      ],
      changedAddresses: [inv.participantAddress],
      parentId: inv.id,
      kind: "tool_action",
      state: "indeterminate",
      settlement: "indeterminate",
      resolution: confirmed,
      admittedAt: unknown.admittedAt,
      unknownReason: "harness lost the tool process",
      updatedAt: confirmed.resolvedAt,
    });
    assert.deepEqual(await store.getToolAction(succeeded.id), succeeded);
  });
}

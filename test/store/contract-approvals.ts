import assert from "node:assert/strict";
import { it } from "node:test";
import {
  ApprovalRefusal,
  approveToolAction,
  denyToolAction,
  listOperatorWaits,
} from "../../src/operations/index.js";
import type { ApprovalRecord } from "../../src/records/index.js";
import type { FixtureSource } from "./contract.js";
import { invocation, scheduler, toolAction } from "./records.js";

const HELD: ApprovalRecord = {
  state: "pending",
  requestedAt: "2025-01-02T00:00:00.000000Z",
  timeoutSeconds: 300,
};
const now = () => new Date("2025-01-02T00:00:05.000Z");

/** A store with one admitted action held for approval, and one never held. */
async function held(fixture: FixtureSource) {
  const { store } = fixture();
  const inv = invocation();
  await store.openInvocation(inv, scheduler({ attempts: 1 }));
  const action = toolAction(inv, 1);
  const plain = toolAction(inv, 2);
  await store.insertToolAction(action);
  await store.insertToolAction(plain);
  assert.equal(await store.recordApproval(action.id, HELD, undefined), true);
  return { store, action, plain };
}

/** Held calls (docs/guide/approvals.md): one compare-and-set per change, decisions chained with their operator. */
export function approvalCases(fixture: FixtureSource): void {
  it("holds an admitted action once, and keeps the approval on its record and operation", async () => {
    const { store, action } = await held(fixture);
    assert.equal(await store.recordApproval(action.id, HELD, undefined), false, "held twice");
    assert.deepEqual((await store.getToolAction(action.id))?.approval, HELD);
    assert.deepEqual((await store.getOperation(action.id))?.approval, HELD);
    assert.deepEqual(await store.readDecisionPage(0, 10), [], "a hold is not an operator decision");
  });

  it("approves a pending action once, recording the operator in the decision chain; again is a no-op", async () => {
    const { store, action } = await held(fixture);
    const first = await approveToolAction(store, action.id, { operator: "alice", note: "in scope", now });
    assert.equal(first.outcome, "approved");
    const stored = (await store.getToolAction(action.id))?.approval;
    assert.deepEqual(stored, {
      ...HELD,
      state: "approved",
      decidedAt: "2025-01-02T00:00:05.000000Z",
      operator: "alice",
      note: "in scope",
    });
    const again = await approveToolAction(store, action.id, { operator: "bob", now });
    assert.equal(again.outcome, "already-approved");
    const decisions = await store.readDecisionPage(0, 10);
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.subject, d.operator, d.note]),
      [["approve", action.id, "alice", "in scope"]],
    );
    const deny = await denyToolAction(store, action.id, { operator: "bob", now });
    assert.equal(deny.outcome, "refused");
    assert.equal(deny.outcome === "refused" && deny.code, ApprovalRefusal.already_approved);
    assert.equal((await store.getDecisionHead()).decisions, 1, "a refusal leaves no trace");
  });

  it("denies a pending action; approve after deny is refused with approval.already-denied", async () => {
    const { store, action } = await held(fixture);
    assert.equal((await denyToolAction(store, action.id, { operator: "carol", now })).outcome, "denied");
    assert.equal(
      (await denyToolAction(store, action.id, { operator: "carol", now })).outcome,
      "already-denied",
    );
    const approve = await approveToolAction(store, action.id, { operator: "carol", now });
    assert.deepEqual(
      approve.outcome === "refused" ? approve.code : approve.outcome,
      ApprovalRefusal.already_denied,
    );
    const [decision, ...more] = await store.readDecisionPage(0, 10);
    assert.deepEqual(more, []);
    assert.deepEqual([decision?.kind, decision?.operator], ["deny", "carol"]);
  });

  it("refuses an unknown id, an action never held, and an expired approval, each with its code", async () => {
    const { store, action, plain } = await held(fixture);
    const code = async (id: string) => {
      const answer = await approveToolAction(store, id, { operator: "dave", now });
      return answer.outcome === "refused" ? answer.code : answer.outcome;
    };
    assert.equal(await code("no-such-action"), ApprovalRefusal.unknown_action);
    assert.equal(await code(plain.id), ApprovalRefusal.not_held);
    const expired: ApprovalRecord = {
      ...HELD,
      state: "expired",
      decidedAt: HELD.requestedAt,
      expiredBy: "timeout",
    };
    assert.equal(await store.recordApproval(action.id, expired, "pending"), true);
    assert.equal(await code(action.id), ApprovalRefusal.expired);
    assert.equal(await store.recordApproval(action.id, { ...expired, state: "approved" }, "pending"), false);
    assert.equal((await store.getDecisionHead()).decisions, 0);
  });

  it("two concurrent approvals record one decision: one approves, the other finds it approved", async () => {
    const { store, action } = await held(fixture);
    const answers = await Promise.all([
      approveToolAction(store, action.id, { operator: "erin", now }),
      approveToolAction(store, action.id, { operator: "frank", now }),
    ]);
    assert.deepEqual(answers.map((a) => a.outcome).sort(), ["already-approved", "approved"]);
    assert.equal((await store.getDecisionHead()).decisions, 1);
  });

  it("an approve racing a deny: exactly one wins, the other is refused", async () => {
    const { store, action } = await held(fixture);
    const answers = await Promise.all([
      approveToolAction(store, action.id, { operator: "erin", now }),
      denyToolAction(store, action.id, { operator: "frank", now }),
    ]);
    const won = answers.filter((a) => a.outcome === "approved" || a.outcome === "denied");
    assert.equal(won.length, 1);
    assert.equal(answers.filter((a) => a.outcome === "refused").length, 1);
    assert.equal((await store.getDecisionHead()).decisions, 1);
  });

  it("lists a pending approval as an operator need, and not once it is decided", async () => {
    const { store, action } = await held(fixture);
    const waits = await listOperatorWaits(store, { limit: 10 });
    assert.deepEqual(
      waits.map((w) => [w.need, w.entry.id]),
      [["pending_approval", action.id]],
    );
    await approveToolAction(store, action.id, { operator: "gina", now });
    assert.deepEqual(await listOperatorWaits(store, { limit: 10 }), []);
  });

  it("never decides an action that has moved on from admitted", async () => {
    const { store, action } = await held(fixture);
    const settled = { ...action, approval: HELD, phase: "settled" as const, settlement: "withheld" as const };
    assert.equal(await store.updateToolAction(settled, "admitted"), true);
    const answer = await approveToolAction(store, action.id, { operator: "hal", now });
    assert.equal(answer.outcome === "refused" && answer.code, ApprovalRefusal.not_pending);
  });
}

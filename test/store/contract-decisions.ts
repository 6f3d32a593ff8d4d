import assert from "node:assert/strict";
import { it } from "node:test";
import {
  chainDigest,
  EMPTY_OPERATOR_CHAIN,
  OPERATOR_GENESIS,
  type OperatorDecisionDraft,
} from "../../src/records/index.js";
import { LeaseLostError, StoreErrorCode } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { invocation, P1, scheduler, toolAction } from "./records.js";

const RESUME: OperatorDecisionDraft = {
  kind: "resume",
  subject: P1,
  operator: "alice@ops",
  note: "portal checked",
  decided_at: "2025-01-02T00:00:00.000000Z",
};

/** The operator chain: decisions appended with their effect, chained from the genesis, read by page. */
export function decisionCases(fixture: FixtureSource): void {
  it("starts the operator chain at the genesis with no decision", async () => {
    const { store } = fixture();
    assert.deepEqual(await store.getDecisionHead(), EMPTY_OPERATOR_CHAIN);
    assert.deepEqual(await store.readDecisionPage(0, 10), []);
  });

  it("chains each decision from the one before, with the schedulers it saves", async () => {
    const { store } = fixture();
    const resumed = scheduler({ lifecycle: "running", attempts: 1 });
    const first = await store.recordDecision(RESUME, [resumed]);
    assert.deepEqual(await store.getScheduler(P1, resumed.policyAddress), resumed);
    const { chain_digest: _d, ...unsigned } = first;
    assert.deepEqual(unsigned, { ...RESUME, sequence: 1 });
    assert.equal(first.chain_digest, chainDigest(OPERATOR_GENESIS, unsigned));
    const second = await store.recordDecision({ ...RESUME, operator: "bob", note: "" }, []);
    assert.equal(second.sequence, 2);
    assert.equal(
      second.chain_digest,
      chainDigest(first.chain_digest, { ...second, chain_digest: undefined }),
    );
    assert.deepEqual(await store.readDecisionPage(0, 10), [first, second]);
    assert.deepEqual(await store.readDecisionPage(1, 10), [second]);
    assert.deepEqual(await store.readDecisionPage(0, 1), [first]);
    assert.deepEqual(await store.getDecisionHead(), {
      head_digest: second.chain_digest,
      head_sequence: 2,
      decisions: 2,
    });
  });

  it("refuses a decision whose note or operator holds a lone surrogate or a NUL, writing nothing (store.decision-invalid)", async () => {
    const { store } = fixture();
    const resumed = scheduler({ lifecycle: "running", attempts: 1 });
    for (const draft of [
      { ...RESUME, note: "checked \ud800 logs" },
      { ...RESUME, note: "checked \u0000 logs" },
      { ...RESUME, operator: "alice\udc00" },
    ]) {
      await assert.rejects(
        store.recordDecision(draft, [resumed]),
        (error: unknown) => (error as { code?: unknown }).code === StoreErrorCode.decision_invalid,
      );
    }
    assert.deepEqual(await store.readDecisionPage(0, 10), []);
    assert.equal(await store.getScheduler(P1, resumed.policyAddress), undefined);
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    const unknown = toolAction(inv, 1, { phase: "settled", settlement: "indeterminate" });
    await store.insertToolAction(unknown);
    const at = "2025-01-02T00:00:00.000000Z";
    const note = "checked \ud800 logs";
    await assert.rejects(
      store.recordResolution(
        unknown.id,
        { resolution: "effect_absent", note, resolvedAt: at, operator: "carol" },
        { kind: "resolve", subject: unknown.id, operator: "carol", note, decided_at: at },
      ),
      (error: unknown) => (error as { code?: unknown }).code === StoreErrorCode.decision_invalid,
    );
    assert.equal((await store.getOperation(unknown.id))?.resolution, undefined);
    assert.deepEqual(await store.readDecisionPage(0, 10), []);
  });

  it("appends a resolve decision only with the resolution it records", async () => {
    const { store } = fixture();
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    const unknown = toolAction(inv, 1, { phase: "settled", settlement: "indeterminate" });
    const done = toolAction(inv, 2, { phase: "settled", settlement: "succeeded" });
    await store.insertToolAction(unknown);
    await store.insertToolAction(done);
    const at = "2025-01-02T00:00:00.000000Z";
    const resolution = { resolution: "effect_absent" as const, note: "n", resolvedAt: at, operator: "carol" };
    const draft = {
      kind: "resolve" as const,
      subject: unknown.id,
      operator: "carol",
      note: "n",
      decided_at: at,
    };
    assert.equal(await store.recordResolution(done.id, resolution, { ...draft, subject: done.id }), false);
    assert.deepEqual(await store.readDecisionPage(0, 10), [], "a refused resolution chains nothing");
    assert.equal(await store.recordResolution(unknown.id, resolution, draft), true);
    assert.equal((await store.getOperation(unknown.id))?.resolution?.operator, "carol");
    const [decision, ...more] = await store.readDecisionPage(0, 10);
    assert.deepEqual(more, []);
    assert.equal(decision?.subject, unknown.id);
    assert.equal(decision?.operator, "carol");
    assert.equal(await store.recordResolution(unknown.id, resolution, draft), false);
    assert.equal((await store.getDecisionHead()).decisions, 1);
  });

  it("refuses a fenced decision whose lease was lost, chaining and saving nothing", async () => {
    const { store } = fixture();
    const lease = await store.acquireLease(P1, "owner-a", 60_000);
    assert.ok(lease);
    const stale = { participantAddress: P1, token: lease.token };
    await store.releaseLease(lease);
    assert.ok(await store.acquireLease(P1, "owner-b", 60_000));
    await assert.rejects(store.recordDecision(RESUME, [scheduler()], stale), LeaseLostError);
    assert.deepEqual(await store.getDecisionHead(), EMPTY_OPERATOR_CHAIN);
    assert.equal(await store.getScheduler(P1, scheduler().policyAddress), undefined);
  });
}

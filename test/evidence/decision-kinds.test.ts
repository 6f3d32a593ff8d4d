import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChainBreak, DecisionVerifier } from "../../src/evidence/index.js";
import {
  appendDecision,
  EMPTY_OPERATOR_CHAIN,
  type OperatorChainHead,
  type OperatorDecision,
} from "../../src/records/index.js";

/** Four chained `resume` decisions and the head that ends them. */
function chain(): { decisions: OperatorDecision[]; head: OperatorChainHead } {
  const decisions: OperatorDecision[] = [];
  let head = EMPTY_OPERATOR_CHAIN;
  for (let i = 1; i <= 4; i += 1) {
    const d = appendDecision(head, {
      kind: "resume",
      subject: "participant:green/participant-agent",
      operator: "alice",
      note: `note ${i}`,
      decided_at: `2026-01-0${i}T00:00:00.000000Z`,
    });
    decisions.push(d);
    head = { head_digest: d.chain_digest, head_sequence: d.sequence, decisions: d.sequence };
  }
  return { decisions, head };
}

function verify(decisions: readonly OperatorDecision[], head: OperatorChainHead) {
  const verifier = new DecisionVerifier(head);
  for (const d of decisions) if (!verifier.add(d)) break;
  return verifier.finish();
}

const ZEROS = `sha256:${"0".repeat(64)}`;

describe("the operator chain names each tampering with the documented kind", () => {
  it("verifies the untouched chain", () => {
    const { decisions, head } = chain();
    assert.equal(verify(decisions, head).ok, true);
  });

  it("names a changed chain_digest value edited, mid-chain and at the head", () => {
    const { decisions, head } = chain();
    for (const at of [1, 3]) {
      const edited = decisions.map((d, i) => (i === at ? { ...d, chain_digest: ZEROS } : d));
      const report = verify(edited, head);
      assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.edited, at + 1]);
      assert.match(report.failure?.detail ?? "", /its chain_digest was changed/);
    }
  });

  it("names a decision removed and the later ones renumbered down removed, at the removed sequence", () => {
    const { decisions, head } = chain();
    const renumbered = [decisions[0], ...decisions.slice(2).map((d) => ({ ...d, sequence: d.sequence - 1 }))];
    const report = verify(renumbered as OperatorDecision[], { ...head, head_sequence: 3, decisions: 3 });
    assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.removed, 2]);
  });

  it("names two swapped decisions reordered, at the first", () => {
    const { decisions, head } = chain();
    const [a, b] = [decisions[1] as OperatorDecision, decisions[2] as OperatorDecision];
    const swapped = [decisions[0], { ...b, sequence: 2 }, { ...a, sequence: 3 }, decisions[3]];
    const report = verify(swapped as OperatorDecision[], head);
    assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.reordered, 2]);
  });

  it("names a decision holding a number beyond a double edited, without throwing", () => {
    const { decisions, head } = chain();
    const edited = decisions.map((d, i) => (i === 1 ? { ...d, weight: Number.POSITIVE_INFINITY } : d));
    const report = verify(edited as OperatorDecision[], head);
    assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.edited, 2]);
  });

  it("names two decision lines swapped, as in a bundle, reordered at the decision that came late", () => {
    const { decisions, head } = chain();
    const [a, b, c, d] = decisions as [
      OperatorDecision,
      OperatorDecision,
      OperatorDecision,
      OperatorDecision,
    ];
    const report = verify([a, c, b, d], head);
    assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.reordered, 2]);
    assert.match(report.failure?.detail ?? "", /^it comes after decision 3: the decisions are out of order$/);
  });

  it("names a decision line repeated, as in a bundle, inserted at the repeated sequence", () => {
    const { decisions, head } = chain();
    const [a, b, c, d] = decisions as [
      OperatorDecision,
      OperatorDecision,
      OperatorDecision,
      OperatorDecision,
    ];
    for (const [lines, at] of [
      [[a, b, b, c, d], 2],
      [[a, b, c, a, d], 1],
    ] as const) {
      const report = verify(lines, head);
      assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.inserted, at]);
      assert.match(report.failure?.detail ?? "", /was read already .*: the decision is repeated or put in$/);
    }
  });

  it("names a decision missing with nothing to bring it late removed, at the missing sequence", () => {
    const { decisions, head } = chain();
    const [a, , c, d] = decisions as [OperatorDecision, OperatorDecision, OperatorDecision, OperatorDecision];
    for (const lines of [
      [a, c, d],
      [a, c],
    ]) {
      const report = verify(lines, head);
      assert.deepEqual([report.failure?.kind, report.failure?.sequence], [ChainBreak.removed, 2]);
    }
  });
});

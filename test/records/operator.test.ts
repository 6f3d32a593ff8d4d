import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import {
  appendDecision,
  EMPTY_OPERATOR_CHAIN,
  headAfter,
  OPERATOR_GENESIS,
} from "../../src/records/index.js";

const hex = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

describe("the operator chain's digests as docs/evidence-format.md specifies them", () => {
  it("starts from the documented genesis", () => {
    assert.equal(OPERATOR_GENESIS, hex('{"chain":"raes-ts/operator-decisions"}'));
    assert.equal(OPERATOR_GENESIS, "sha256:bf763c39de3dfa5bc8b7a2234c62842e99b87eadb2a790d99e0e717982971931");
  });

  it("links each decision by the previous digest then the decision's RFC 8785 text", () => {
    const first = appendDecision(EMPTY_OPERATOR_CHAIN, {
      kind: "resolve",
      subject: "inv-a.tool-1",
      operator: "bob",
      note: "",
      decided_at: "2025-01-02T00:00:00.000000Z",
    });
    const text =
      '{"decided_at":"2025-01-02T00:00:00.000000Z","kind":"resolve","note":"","operator":"bob","sequence":1,"subject":"inv-a.tool-1"}';
    assert.equal(first.chain_digest, hex(OPERATOR_GENESIS + text));
    const second = appendDecision(headAfter(first), { ...first, kind: "resume", subject: "p" });
    assert.equal(second.sequence, 2);
    assert.equal(
      second.chain_digest,
      hex(
        `${first.chain_digest}{"decided_at":"2025-01-02T00:00:00.000000Z","kind":"resume","note":"","operator":"bob","sequence":2,"subject":"p"}`,
      ),
    );
  });
});

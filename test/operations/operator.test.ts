import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decisionNote, OperatorError, operatorIdentity } from "../../src/operations/index.js";

const sources = (env: Record<string, string | undefined>) => ({
  env,
  user: () => "dana",
  host: () => "ops-1",
});

describe("operator identity", () => {
  it("is --operator first, then RAES_OPERATOR, then USER@HOST", () => {
    assert.equal(operatorIdentity("alice", sources({ RAES_OPERATOR: "bot" })), "alice");
    assert.equal(operatorIdentity(undefined, sources({ RAES_OPERATOR: "bot" })), "bot");
    assert.equal(operatorIdentity(undefined, sources({})), "dana@ops-1");
  });

  it("treats an empty RAES_OPERATOR as unset", () => {
    assert.equal(operatorIdentity(undefined, sources({ RAES_OPERATOR: "" })), "dana@ops-1");
  });

  it("refuses an empty, overlong or control-character name with operator.invalid", () => {
    for (const bad of ["", "x".repeat(257), "a\nb", "tab\there"]) {
      assert.throws(
        () => operatorIdentity(bad, sources({})),
        (error: unknown) => error instanceof OperatorError && error.code === "operator.invalid",
      );
    }
    assert.equal(operatorIdentity("x".repeat(256), sources({})).length, 256);
  });

  it("bounds a decision's note at 4096 characters (operator.note-too-long)", () => {
    assert.equal(decisionNote(undefined), "");
    assert.equal(decisionNote("x".repeat(4096)).length, 4096);
    assert.throws(
      () => decisionNote("x".repeat(4097)),
      (error: unknown) => error instanceof OperatorError && error.code === "operator.note-too-long",
    );
  });

  it("refuses a note holding a lone surrogate or a NUL (operator.note-invalid), keeps paired surrogates", () => {
    for (const note of ["checked \ud800 logs", "checked \udc00", "a\u0000b"])
      assert.throws(
        () => decisionNote(note),
        (error: unknown) => error instanceof OperatorError && error.code === "operator.note-invalid",
      );
    assert.equal(decisionNote("ok \ud83d\ude00"), "ok \ud83d\ude00");
  });

  it("refuses an operator name holding a lone surrogate (operator.invalid)", () => {
    assert.throws(
      () => operatorIdentity("alice\ud800", sources({})),
      (error: unknown) => error instanceof OperatorError && error.code === "operator.invalid",
    );
  });
});

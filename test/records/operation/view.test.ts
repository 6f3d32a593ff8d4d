import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  operationFromInvocation,
  operationFromToolAction,
  type ToolActionRecord,
} from "../../../src/records/index.js";
import { invocation, P1, toolAction } from "../../store/records.js";

// RAES's operation status carries `domain`, `diagnostics` ({code, domain, address, message, severity}) and
// `changed_addresses` (test/fixtures/raes-views/open-operations.json); raes-ts's codes are its own.
const CODE = /^[a-z0-9]+(?:[.-][a-z0-9]+)*$/; // RAES's diagnostic code syntax

describe("operation views: RAES's domain, diagnostics and changed_addresses", () => {
  it("a succeeded invocation is participant work on its participant with no diagnostics", () => {
    const op = operationFromInvocation(invocation({ state: "succeeded" }));
    assert.equal(op.domain, "participant");
    assert.deepEqual(op.diagnostics, []);
    assert.deepEqual(op.changedAddresses, [P1]);
  });

  it("a failed invocation with refused calls and a recovery names each, refusals by code", () => {
    const op = operationFromInvocation(
      invocation({
        state: "failed",
        refusals: { target_outside_binding: 1, request_conflict: 2 },
        recoveredAt: "2026-01-01T00:00:01.000000Z",
      }),
    );
    assert.deepEqual(
      op.diagnostics.map((d) => [d.code, d.severity, d.message]),
      [
        ["operation.failed", "error", "the invocation failed"],
        ["operation.call-refused", "warning", "2 calls refused with request_conflict"],
        ["operation.call-refused", "warning", "1 call refused with target_outside_binding"],
        [
          "operation.recovered",
          "warning",
          "consumed by recovery: its runtime process ended, lost its participant, or could not commit its close",
        ],
      ],
    );
    for (const d of op.diagnostics) {
      assert.match(d.code, CODE);
      assert.equal(d.domain, "participant");
      assert.equal(d.address, P1);
    }
  });

  it("tool actions: failed, withheld and indeterminate each say why; a resolved one is information", () => {
    const inv = invocation();
    const failed = operationFromToolAction(
      toolAction(inv, 1, { phase: "settled", settlement: "failed", failureClass: "timeout" }),
    );
    assert.deepEqual(
      failed.diagnostics.map((d) => [d.code, d.message]),
      [["operation.failed", "failed: timeout"]],
    );
    const withheld = operationFromToolAction(
      toolAction(inv, 2, { phase: "settled", settlement: "withheld", withheldReason: "arguments_rejected" }),
    );
    assert.deepEqual(
      withheld.diagnostics.map((d) => [d.code, d.message]),
      [["operation.withheld", "withheld: arguments_rejected"]],
    );
    const unknown = toolAction(inv, 3, {
      phase: "settled",
      settlement: "indeterminate",
      unknownReason: "runtime_interrupted",
    });
    assert.deepEqual(
      operationFromToolAction(unknown).diagnostics.map((d) => [d.code, d.severity]),
      [["operation.effects-unknown", "error"]],
    );
    const resolved = operationFromToolAction({
      ...unknown,
      resolution: { resolution: "effect_absent", note: "checked", resolvedAt: "2026-01-01T00:00:02.000000Z" },
    });
    assert.deepEqual(
      resolved.diagnostics.map((d) => d.severity),
      ["info"],
    );
    assert.deepEqual(resolved.changedAddresses, [P1]);
  });

  it("a recovered tool action says whether its own process recovered it after losing the claim's answer", () => {
    const inv = invocation();
    const recoveredAt = "2026-01-01T00:00:01.000000Z";
    const message = (fields: Partial<ToolActionRecord>) =>
      operationFromToolAction(
        toolAction(inv, 4, { phase: "settled", recoveredAt, ...fields }),
      ).diagnostics.find((d) => d.code === "operation.recovered")?.message;
    const OTHER =
      "settled by recovery: its runtime process ended, lost its participant, or could not commit its invocation's close";
    const sameProcess =
      "settled by recovery in the runtime process whose store lost the claim's answer (its caller heard a refusal)";
    assert.equal(message({ settlement: "withheld", withheldReason: "claim_unanswered" }), sameProcess);
    assert.equal(message({ settlement: "failed", failureClass: "claim_unanswered" }), sameProcess);
    assert.equal(message({ settlement: "withheld" }), OTHER);
    // Recovered beside such a claim, or by another process: the record cannot say which process, nor why.
    assert.equal(message({ settlement: "indeterminate", unknownReason: "runtime_interrupted" }), OTHER);
  });
});

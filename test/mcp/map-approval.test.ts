import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolMapDiagnosticCode as Code, parseToolMap } from "../../src/mcp/index.js";

const ENTRY = `
    tool_affordance: participant.behavior-specification.participant-behavior.tool-affordance.portal-client
    action_contract: participant.action-contract.probe-customer-portal-login
    observation_boundary: participant.observation-boundary.participant-view
    targets: [provision.node.customer-portal.service.http]`;

/** The map with `approval` (its YAML text, indented under the entry) on tool `a`. */
const withApproval = (approval: string) => `tools:\n  a:${ENTRY}\n    approval: ${approval}\n`;

function problems(text: string): string[] {
  const result = parseToolMap(text);
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.path} ${d.line}:${d.column}`);
}

describe("a map entry's approval", () => {
  it("reads `required` as every call held for 300 s, and `{when, timeout_seconds}` as a rule and a bound", () => {
    const required = parseToolMap(withApproval("required"));
    assert.ok(required.ok);
    assert.deepEqual(required.map.tools.get("a")?.approval, { timeoutSeconds: 300 });
    const ruled = parseToolMap(
      withApproval("\n      when: {properties: {path: {const: /admin}}}\n      timeout_seconds: 45"),
    );
    assert.ok(ruled.ok);
    const approval = ruled.map.tools.get("a")?.approval;
    assert.equal(approval?.timeoutSeconds, 45);
    assert.equal(approval?.when?.({ path: "/admin" }), undefined, "matches: held");
    assert.notEqual(approval?.when?.({ path: "/login" }), undefined, "does not match: runs at once");
    const bounded = parseToolMap(withApproval("{timeout_seconds: 5}"));
    assert.ok(bounded.ok);
    assert.deepEqual(bounded.map.tools.get("a")?.approval, { timeoutSeconds: 5 });
    assert.equal(parseToolMap(`tools:\n  a:${ENTRY}\n`).ok && undefined, undefined);
  });

  it("reports a bad approval as mcp-map.approval-invalid at its file position", () => {
    assert.deepEqual(problems(withApproval("always")), [`${Code.approval_invalid} tools.a.approval 7:15`]);
    assert.deepEqual(problems(withApproval("{timeout_seconds: 0}")), [
      `${Code.approval_invalid} tools.a.approval.timeout_seconds 7:33`,
    ]);
    assert.deepEqual(problems(withApproval("{timeout_seconds: 1.5}")), [
      `${Code.approval_invalid} tools.a.approval.timeout_seconds 7:33`,
    ]);
    assert.deepEqual(problems(withApproval("{timeout_seconds: 86401}")), [
      `${Code.approval_invalid} tools.a.approval.timeout_seconds 7:33`,
    ]);
    assert.deepEqual(problems(withApproval("{after: 3}")), [
      `${Code.approval_invalid} tools.a.approval.after 7:16`,
    ]);
    // A bad `when` schema names the offending keyword's position inside it.
    assert.deepEqual(problems(withApproval("\n      when:\n        type: objekt")), [
      `${Code.approval_invalid} tools.a.approval.when 9:15`,
    ]);
  });
});

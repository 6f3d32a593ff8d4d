import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ToolMapDiagnosticCode as Code, loadToolMap, parseToolMap } from "../../src/mcp/index.js";

const ENTRY = `
    tool_affordance: participant.behavior-specification.participant-behavior.tool-affordance.portal-client
    action_contract: participant.action-contract.probe-customer-portal-login
    observation_boundary: participant.observation-boundary.participant-view
    targets: [provision.node.customer-portal.service.http]`;

function codes(text: string): string[] {
  const result = parseToolMap(text);
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.path} ${d.line}:${d.column}`);
}

describe("gateway map file", () => {
  it("reads a valid map into governed tool actions", () => {
    const result = parseToolMap(
      `tools:\n  probe_login:${ENTRY}\n    evidence_refs: [content.participant-observation]\n  other.tool-2:${ENTRY}\n`,
    );
    assert.ok(result.ok);
    assert.deepEqual([...result.map.tools.keys()], ["probe_login", "other.tool-2"]);
    assert.deepEqual(result.map.tools.get("probe_login"), {
      toolAffordanceAddress:
        "participant.behavior-specification.participant-behavior.tool-affordance.portal-client",
      actionContractAddress: "participant.action-contract.probe-customer-portal-login",
      observationBoundaryAddress: "participant.observation-boundary.participant-view",
      targetAddresses: ["provision.node.customer-portal.service.http"],
      evidenceRefs: ["content.participant-observation"],
    });
    assert.deepEqual(result.map.tools.get("other.tool-2")?.evidenceRefs, []);
  });

  it("gives each problem a fixed code, a path and a position", () => {
    assert.deepEqual(codes("tools: [a"), [`${Code.yaml_invalid}  1:10`]);
    assert.deepEqual(
      codes(`tools:\n  a:${ENTRY}\n  a:${ENTRY}\n`).map((c) => c.split(" ")[0]),
      [Code.yaml_invalid],
    );
    assert.deepEqual(
      codes(`x: &a 1\ntools:\n  b: *a\n`).map((c) => c.split(" ")[0]),
      [Code.yaml_invalid],
    );
    assert.deepEqual(codes("- tools"), [`${Code.not_a_mapping}  1:1`]);
    assert.deepEqual(codes("tools: {}"), [`${Code.no_tools} tools 1:1`]);
    assert.deepEqual(codes("other: 1"), [`${Code.unknown_key} other 1:1`, `${Code.no_tools} tools 1:1`]);
    assert.deepEqual(codes("tools: [a]"), [`${Code.not_a_mapping} tools 1:1`]);
    assert.deepEqual(codes("tools:\n  a: 1\n"), [`${Code.not_a_mapping} tools.a 2:3`]);
    assert.deepEqual(codes(`tools:\n  "bad name":${ENTRY}\n`), [
      `${Code.tool_name_invalid} tools.bad name 2:3`,
    ]);
    assert.deepEqual(codes(`tools:\n  a:${ENTRY}\n    argument: {}\n`), [
      `${Code.unknown_key} tools.a.argument 7:5`,
    ]);
    assert.deepEqual(codes("tools:\n  a:\n    targets: [provision.node.x]\n"), [
      `${Code.field_missing} tools.a.tool_affordance 2:3`,
      `${Code.field_missing} tools.a.action_contract 2:3`,
      `${Code.field_missing} tools.a.observation_boundary 2:3`,
    ]);
  });

  it("requires addresses, and 1 to 64 distinct targets", () => {
    const withTargets = (targets: string) =>
      `tools:\n  a:${ENTRY.replace(/targets: .*/, `targets: ${targets}`)}\n`;
    assert.deepEqual(codes(withTargets("[]")), [`${Code.field_invalid} tools.a.targets 6:14`]);
    assert.deepEqual(codes(withTargets("[Not.An.Address]")), [`${Code.field_invalid} tools.a.targets 6:14`]);
    assert.deepEqual(codes(withTargets("[provision.node.a, provision.node.a]")), [
      `${Code.field_invalid} tools.a.targets 6:14`,
    ]);
    const many = `[${Array.from({ length: 65 }, (_, i) => `provision.node.n${i}`).join(", ")}]`;
    assert.deepEqual(codes(withTargets(many)), [`${Code.field_invalid} tools.a.targets 6:14`]);
    assert.deepEqual(
      codes(
        `tools:\n  a:${ENTRY.replace("participant.action-contract.probe-customer-portal-login", "42")}\n`,
      ),
      [`${Code.field_invalid} tools.a.action_contract 4:22`],
    );
  });

  it("reports an unreadable file", () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-map-"));
    try {
      const missing = loadToolMap(join(dir, "missing.yaml"));
      assert.equal(missing.ok ? "ok" : missing.diagnostics[0]?.code, Code.unreadable);
      writeFileSync(join(dir, "map.yaml"), `tools:\n  a:${ENTRY}\n`);
      assert.ok(loadToolMap(join(dir, "map.yaml")).ok);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

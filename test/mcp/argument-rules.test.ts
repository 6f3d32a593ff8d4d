import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolMapDiagnosticCode as Code, formatToolMapDiagnostic, parseToolMap } from "../../src/mcp/index.js";

const ENTRY = `
    tool_affordance: participant.behavior-specification.participant-behavior.tool-affordance.portal-client
    action_contract: participant.action-contract.probe-customer-portal-login
    observation_boundary: participant.observation-boundary.participant-view
    targets: [provision.node.customer-portal.service.http]`;

const mapWith = (rules: string) => `tools:\n  probe_login:${ENTRY}\n    arguments:\n${rules}`;

function diagnostics(text: string): string[] {
  const result = parseToolMap(text);
  return result.ok ? [] : result.diagnostics.map((d) => formatToolMapDiagnostic("map.yaml", d));
}

describe("a map entry's arguments rule", () => {
  it("compiles a draft 2020-12 schema once at load and tells matching arguments from others", () => {
    const result = parseToolMap(
      mapWith(`      type: object
      properties:
        path: {type: string, pattern: "^/[a-z]*$", maxLength: 16}
        retries: {type: integer, minimum: 0, maximum: 3}
      required: [path]
      additionalProperties: false
`),
    );
    assert.ok(result.ok, JSON.stringify(result));
    const rule = result.map.tools.get("probe_login")?.argumentRule;
    assert.ok(rule);
    assert.equal(rule({ path: "/login" }), undefined);
    assert.equal(rule({ path: "/login", retries: 2 }), undefined);
    assert.equal(rule(undefined), "the arguments must have required property 'path' (required)");
    assert.equal(rule({ path: "/Login" }), 'argument /path must match pattern "^/[a-z]*$" (pattern)');
    assert.equal(rule({ path: "/login", retries: 9 }), "argument /retries must be <= 3 (maximum)");
    assert.equal(
      rule({ path: "/login", extra: "x" }),
      "the arguments must NOT have additional properties (additionalProperties)",
    );
  });

  it("never quotes an argument's value in its message", () => {
    const canary = "canary-7f3e9a0c";
    const result = parseToolMap(
      mapWith(`      type: object
      properties:
        q: {type: string, maxLength: 4}
        n: {const: 1}
        e: {enum: [a, b]}
        f: {type: integer}
        o: {type: object, additionalProperties: false}
`),
    );
    assert.ok(result.ok);
    const rule = result.map.tools.get("probe_login")?.argumentRule;
    assert.ok(rule);
    for (const args of [{ q: canary }, { n: canary }, { e: canary }, { f: canary }, { o: { [canary]: 1 } }]) {
      const message = rule(args);
      assert.ok(message, JSON.stringify(args));
      assert.ok(!message.includes(canary), message);
    }
  });

  it("reports a bad schema as a map error at its file, line and column", () => {
    assert.deepEqual(diagnostics(mapWith("      type: objec\n")), [
      `map.yaml:8:13: ${Code.arguments_invalid} tools.probe_login.arguments: 'arguments' is not a valid JSON Schema (draft 2020-12): /type must be equal to one of the allowed values`,
    ]);
    assert.deepEqual(
      diagnostics(
        mapWith("      type: object\n      properties:\n        n: {type: integer, minimum: low}\n"),
      ),
      [
        `map.yaml:10:37: ${Code.arguments_invalid} tools.probe_login.arguments: 'arguments' is not a valid JSON Schema (draft 2020-12): /properties/n/minimum must be number`,
      ],
    );
    // Unknown keywords and formats are errors, not silently ignored; a remote $ref is never fetched.
    assert.match(diagnostics(mapWith("      typo: object\n"))[0] ?? "", /8:7: .*unknown keyword: "typo"/);
    assert.match(diagnostics(mapWith("      format: email\n"))[0] ?? "", /unknown format "email"/);
    assert.match(
      diagnostics(mapWith("      $ref: https://example.com/schema.json\n"))[0] ?? "",
      /cannot be compiled: can't resolve reference/,
    );
    assert.deepEqual(diagnostics(`tools:\n  probe_login:${ENTRY}\n    arguments: [a]\n`), [
      `map.yaml:7:16: ${Code.arguments_invalid} tools.probe_login.arguments: 'arguments' must be a JSON Schema (a mapping, or true or false)`,
    ]);
  });

  it("points into the schema at the keyword the meta-schema rejects", () => {
    assert.deepEqual(diagnostics(mapWith("      type: array\n      prefixItems: []\n")), [
      `map.yaml:9:20: ${Code.arguments_invalid} tools.probe_login.arguments: 'arguments' is not a valid JSON Schema (draft 2020-12): /prefixItems must NOT have fewer than 1 items`,
    ]);
  });

  it("lets two tools share a schema $id, and accepts true and false", () => {
    const result = parseToolMap(
      `tools:\n  a:${ENTRY}\n    arguments: {$id: "https://example.com/shared", type: object}\n  b:${ENTRY}\n    arguments: {$id: "https://example.com/shared", type: object}\n  c:${ENTRY}\n    arguments: false\n`,
    );
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.map.tools.get("a")?.argumentRule?.({}), undefined);
    assert.equal(
      result.map.tools.get("c")?.argumentRule?.({}),
      "the arguments boolean schema is false (false schema)",
    );
  });
});

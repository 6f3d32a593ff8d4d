import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { checkManifest, checkManifestFile, ManifestDiagnosticCode } from "../../src/manifest/index.js";
import { loadToolMap, parseToolMap, ToolMapDiagnosticCode } from "../../src/mcp/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_MANIFEST } from "../helpers/example.js";

const ENTRY = `
    tool_affordance: participant.behavior-specification.participant-behavior.tool-affordance.portal-client
    action_contract: participant.action-contract.probe-customer-portal-login
    observation_boundary: participant.observation-boundary.participant-view
    targets: [provision.node.customer-portal.service.http]`;

function mapCodes(text: string): string[] {
  const result = parseToolMap(text);
  return result.ok ? [] : result.diagnostics.map((d) => `${d.code} ${d.path}`);
}

describe("loaders refuse what they cannot hold", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-loaders-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, "fifo");
  execFileSync("mkfifo", [fifo]);
  const folder = join(dir, "folder");
  mkdirSync(folder);
  const specials = ["/dev/zero", fifo, folder];

  it("a map key that is not a string is refused: ~ is not a tool named null, 1 and '1' do not collapse", () => {
    assert.deepEqual(mapCodes(`tools:\n  ~:${ENTRY}\n`), [
      `${ToolMapDiagnosticCode.tool_name_invalid} tools.null`,
    ]);
    assert.deepEqual(mapCodes(`tools:\n  1:${ENTRY}\n  "1":${ENTRY}\n`), [
      `${ToolMapDiagnosticCode.tool_name_invalid} tools.1`,
    ]);
    assert.deepEqual(mapCodes(`tools:\n  true:${ENTRY}\n`), [
      `${ToolMapDiagnosticCode.tool_name_invalid} tools.true`,
    ]);
    assert.deepEqual(
      mapCodes(`tools:\n  a:${ENTRY}\n  "a":${ENTRY}\n`).map((c) => c.split(" ")[0]),
      [ToolMapDiagnosticCode.yaml_invalid],
    );
    assert.deepEqual(mapCodes(`tools:\n  "1":${ENTRY}\n`), []);
  });

  it("deeply nested YAML is a coded depth error in scenarios and maps, never a stack overflow", () => {
    for (const depth of [101, 1_000, 100_000]) {
      for (const text of [
        `a: ${"[".repeat(depth)}${"]".repeat(depth)}`,
        `a: ${"{b: ".repeat(depth)}1${"}".repeat(depth)}`,
        `${"- ".repeat(depth)}x`,
      ]) {
        const { diagnostics } = loadScenario(text, { source: "text" });
        assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics).slice(0, 300));
        assert.equal(diagnostics[0]?.code, "sdl.parse");
        assert.match(diagnostics[0]?.message ?? "", /nested deeper than 100 levels/);
        assert.doesNotMatch(diagnostics[0]?.message ?? "", /call stack/);
      }
      const map = parseToolMap(`tools:\n  a:\n    targets: ${"[".repeat(depth)}${"]".repeat(depth)}\n`);
      assert.equal(map.ok, false);
      if (!map.ok) {
        assert.equal(map.diagnostics[0]?.code, ToolMapDiagnosticCode.yaml_invalid);
        assert.match(map.diagnostics[0]?.message ?? "", /nested deeper than/);
      }
    }
    const block = Array.from({ length: 150 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
    assert.match(
      loadScenario(`${block} 1\n`, { source: "text" }).diagnostics[0]?.message ?? "",
      /nested deeper/,
    );
  });

  it("duplicate keys in manifest JSON are refused with a fixed code, as the YAML loader refuses them", () => {
    const text = readFileSync(EXAMPLE_MANIFEST, "utf8");
    const duplicated = text.replace('"name":', '"name": "first", "name":');
    assert.notEqual(duplicated, text);
    const check = checkManifest(duplicated);
    assert.equal(check.ok, false);
    assert.deepEqual(
      check.diagnostics.map((d) => [d.code, d.path]),
      [[ManifestDiagnosticCode.duplicate_key, "/name"]],
    );
    const escaped = checkManifest('{"a": 1, "\\u0061": 2}');
    assert.deepEqual(
      escaped.diagnostics.map((d) => [d.code, d.path]),
      [[ManifestDiagnosticCode.duplicate_key, "/a"]],
    );
    assert.equal(checkManifest(text).ok, true);
  });

  it("manifest JSON nested too deep or too large is refused with a fixed code", async () => {
    const deep = checkManifest(`{"name": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    assert.deepEqual(
      deep.diagnostics.map((d) => d.code),
      [ManifestDiagnosticCode.source_limit],
    );
    const big = join(dir, "big.json");
    writeFileSync(big, `{"name": "${"x".repeat(2_000_000)}"}`);
    const large = await checkManifestFile(big);
    assert.deepEqual(
      large.diagnostics.map((d) => d.code),
      [ManifestDiagnosticCode.source_limit],
    );
  });

  it("/dev/zero, a FIFO and a directory are refused by every loader without reading them", async () => {
    for (const path of specials) {
      const scenario = loadScenario(path, { source: "path" });
      assert.deepEqual(
        scenario.diagnostics.map((d) => d.code),
        ["sdl.file.not_regular"],
        path,
      );
      assert.match(scenario.diagnostics[0]?.message ?? "", /not a regular file/);
      const manifest = await checkManifestFile(path);
      assert.deepEqual(
        manifest.diagnostics.map((d) => d.code),
        [ManifestDiagnosticCode.file_not_regular],
        path,
      );
      const map = loadToolMap(path);
      assert.deepEqual(
        map.ok ? [] : map.diagnostics.map((d) => d.code),
        [ToolMapDiagnosticCode.not_regular],
        path,
      );
    }
  });

  it("a map file over its limit is refused after reading at most the limit", () => {
    const big = join(dir, "big-map.yaml");
    writeFileSync(big, `tools:\n  a:${ENTRY}\n# ${"x".repeat(300 * 1024)}\n`);
    const map = loadToolMap(big);
    assert.deepEqual(map.ok ? [] : map.diagnostics.map((d) => d.code), [ToolMapDiagnosticCode.unreadable]);
    assert.match(map.ok ? "" : (map.diagnostics[0]?.message ?? ""), /larger than 262144 bytes/);
  });
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  MAX_YAML_ERRORS,
  MAX_YAML_TOKENS,
  withoutStackTraces,
  yamlTokensExceeded,
} from "../../src/input/index.js";
import { parseToolMap, ToolMapDiagnosticCode } from "../../src/mcp/index.js";
import { DiagnosticCode, loadScenario } from "../../src/sdl/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

const MB = 1_000_000;
const aliasChain = Array.from({ length: 10 }, (_, i) => {
  const items =
    i === 0
      ? "[x,x,x,x,x,x,x,x,x,x]"
      : `[${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`;
  return `a${i}: &a${i} ${items}`;
}).join("\n");

/**
 * Shapes that made the `yaml` library spend seconds to minutes (1 MB of `"` took 6 to 56 s: 500 000
 * empty scalars, each a parse error), all within the size limits.
 */
const PATHOLOGICAL: Record<string, string> = {
  "1 MB of double quotes": '"'.repeat(MB - 1_000),
  "1 MB of single quotes": "'".repeat(MB - 1_000),
  "an unterminated double-quoted scalar": `a: "${"x".repeat(MB - 1_000)}`,
  "an unterminated single-quoted scalar": `a: '${"x \\".repeat((MB - 1_000) / 3)}`,
  "an unterminated quote over many lines": `a: "${"x\n".repeat((MB - 1_000) / 2)}`,
  "100 000 nested flow sequences, unclosed": `a: ${"[".repeat(100_000)}`,
  "100 000 nested flow mappings": `a: ${"{a: ".repeat(100_000)}`,
  "billion laughs": `${aliasChain}\nb: *a9\n`,
  "100 000 aliases": `a: &a x\nb: [${Array(100_000).fill("*a").join(",")}]`,
  "300 000 anchors": "&a ".repeat(300_000),
  "300 000 tags": "!a ".repeat(300_000),
  "400 000 empty keys": ": ".repeat(400_000),
  "90 000 keys": Array.from({ length: 90_000 }, (_, i) => `k${i}: 1`).join("\n"),
  "a 1 MB plain scalar": `a: ${"x ".repeat((MB - 1_000) / 2)}`,
  "1 MB of flow commas": `a: [${",".repeat(MB - 1_000)}]`,
};

describe("pathological YAML is refused before the parser spends its time", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-yaml-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("the token guard passes every real scenario and stops lexing hostile text as soon as the budget is spent", () => {
    for (const path of [
      EXAMPLE_SCENARIO,
      join(ROOT, "examples", "enterprise-participant-activity-v2.sdl.yaml"),
    ])
      assert.equal(yamlTokensExceeded(readFileSync(path, "utf8")), undefined, path);
    const quotes = PATHOLOGICAL["1 MB of double quotes"] ?? "";
    const stoppedAt = yamlTokensExceeded(quotes) ?? quotes.length;
    // Two characters per empty scalar: the lexer stopped after the budget, a fifth of the way in.
    assert.ok(stoppedAt <= 2 * MAX_YAML_TOKENS, `stopped at ${stoppedAt}`);
    assert.equal(yamlTokensExceeded("a: [1, 2]", 5), 3);
    assert.equal(yamlTokensExceeded("a: [1, 2]", 50), undefined);
  });

  for (const [name, text] of Object.entries(PATHOLOGICAL)) {
    it(`${name}: a scenario and a map get one fixed code`, () => {
      const { diagnostics } = loadScenario(text, { source: "text" });
      assert.ok(diagnostics.length >= 1, name);
      for (const d of diagnostics) assert.match(d.code, /^sdl\./, `${name}: ${d.code}`);
      assert.doesNotMatch(diagnostics[0]?.message ?? "", /call stack/);
      const map = parseToolMap(text.slice(0, 256 * 1024));
      assert.equal(map.ok, false, name);
      if (!map.ok)
        for (const d of map.diagnostics)
          assert.ok(Object.values(ToolMapDiagnosticCode).includes(d.code), d.code);
    });
  }

  it("text past the token budget is refused by the guard, not by the parser", () => {
    for (const name of [
      "1 MB of double quotes",
      "300 000 anchors",
      "300 000 tags",
      "400 000 empty keys",
      "90 000 keys",
      "100 000 aliases",
    ]) {
      const { diagnostics } = loadScenario(PATHOLOGICAL[name] ?? "", { source: "text" });
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.message]),
        [[DiagnosticCode.sourceLimit, `the source has more than ${MAX_YAML_TOKENS} YAML tokens`]],
        name,
      );
      const map = parseToolMap((PATHOLOGICAL[name] ?? "").slice(0, 256 * 1024));
      assert.deepEqual(
        map.ok ? [] : map.diagnostics.map((d) => [d.code, d.message]),
        [[ToolMapDiagnosticCode.yaml_invalid, "the map has more than 50000 YAML tokens"]],
        name,
      );
    }
  });

  it("under the budget, 100 000 parse errors are made without stack traces and at most 100 are reported", () => {
    const quotes = '"'.repeat(199_000);
    assert.equal(yamlTokensExceeded(quotes), undefined);
    const { diagnostics } = loadScenario(quotes, { source: "text" });
    assert.equal(diagnostics.length, MAX_YAML_ERRORS + 1);
    assert.ok(diagnostics.every((d) => d.code === DiagnosticCode.parse));
    assert.match(diagnostics.at(-1)?.message ?? "", /^\d{5} more YAML errors$/);
    const map = parseToolMap('"'.repeat(99_000));
    assert.equal(map.ok ? 0 : map.diagnostics.length, MAX_YAML_ERRORS + 1);
    assert.match(map.ok ? "" : (map.diagnostics.at(-1)?.message ?? ""), /^\d{5} more YAML errors$/);
  });

  it("withoutStackTraces captures no stack inside and restores the limit, also when the parse throws", () => {
    const before = Error.stackTraceLimit;
    assert.equal(
      withoutStackTraces(() => new Error("x").stack?.includes("\n    at ")),
      false,
    );
    assert.throws(() =>
      withoutStackTraces(() => {
        throw new Error("boom");
      }),
    );
    assert.equal(Error.stackTraceLimit, before);
    assert.equal(new Error("y").stack?.includes("\n    at "), true);
  });

  it("a scenario may set its own token budget", () => {
    const text = readFileSync(EXAMPLE_SCENARIO, "utf8");
    const limited = loadScenario(text, { source: "text", limits: { maxTokens: 100 } });
    assert.deepEqual(
      limited.diagnostics.map((d) => d.code),
      [DiagnosticCode.sourceLimit],
    );
  });

  it("a map repeating a key among a thousand, at any level, is refused in one pass", () => {
    const entry = (extra: string) =>
      ` {tool_affordance: a.b, action_contract: a.c, observation_boundary: a.d, targets: [a.e]${extra}}`;
    const many = Array.from({ length: 1_000 }, (_, i) => `  t${i}:${entry("")}`).join("\n");
    assert.equal(yamlTokensExceeded(many, 50_000), undefined);
    for (const text of [
      `tools:\n${many}\n  t7:${entry("")}\n`,
      `tools:\n${many}\n  "t7":${entry("")}\n`,
      `tools:\n${many}\ntools: {}\n`,
      `tools:\n  a:${entry(", targets: [a.f]")}\n`,
    ]) {
      const map = parseToolMap(text);
      assert.deepEqual(map.ok ? [] : map.diagnostics.map((d) => [d.code, d.message]), [
        [ToolMapDiagnosticCode.yaml_invalid, "Map keys must be unique"],
      ]);
    }
  });

  it("raes validate answers a 1 MB file of quotes with the fixed code", () => {
    const path = join(dir, "quotes.yaml");
    writeFileSync(path, PATHOLOGICAL["1 MB of double quotes"] ?? "");
    const run = spawnSync(process.execPath, cliNodeArgs(["validate", path]), {
      encoding: "utf8",
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /error sdl\.source_limit the source has more than 100000 YAML tokens/);
  });
});

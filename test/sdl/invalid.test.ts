import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Diagnostic, loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_TEXT, editExample } from "../fixtures/scenarios/example.js";
import { type ExpectedError, INVALID_CASES } from "../fixtures/scenarios/invalid/cases.js";

function errorsOf(diagnostics: readonly Diagnostic[]): ExpectedError[] {
  return diagnostics
    .filter((diagnostic) => diagnostic.severity === "error")
    .map(({ code, path }) => ({ code, path }))
    .sort((a, b) => `${a.code} ${a.path}`.localeCompare(`${b.code} ${b.path}`));
}

function sorted(errors: readonly ExpectedError[]): ExpectedError[] {
  return [...errors].sort((a, b) => `${a.code} ${a.path}`.localeCompare(`${b.code} ${b.path}`));
}

describe("invalid scenarios (small edits of the example)", () => {
  it("has at least 30 fixtures, each with at least one expected error", () => {
    assert.ok(INVALID_CASES.length >= 30, `only ${INVALID_CASES.length} fixtures`);
    for (const fixture of INVALID_CASES) assert.ok(fixture.errors.length > 0, fixture.name);
  });

  for (const fixture of INVALID_CASES) {
    it(`${fixture.name}: exactly the expected codes at the expected paths`, () => {
      const { diagnostics } = loadScenario(editExample(fixture.edits), { source: "text" });
      assert.deepEqual(errorsOf(diagnostics), sorted(fixture.errors));
      for (const diagnostic of diagnostics) {
        assert.ok(diagnostic.line >= 1 && diagnostic.column >= 1, `${diagnostic.code} has no position`);
      }
    });
  }
});

describe("source limits", () => {
  it("rejects a file over the byte limit with sdl.source_limit at the root", () => {
    const padding = `# ${"x".repeat(1_000_000)}\n`;
    const { scenario, diagnostics } = loadScenario(EXAMPLE_TEXT + padding, { source: "text" });
    assert.equal(scenario, undefined);
    assert.deepEqual(errorsOf(diagnostics), [{ code: "sdl.source_limit", path: "" }]);
    assert.deepEqual([diagnostics[0]?.line, diagnostics[0]?.column], [1, 1]);
  });

  it("accepts the same file when the byte limit is raised", () => {
    const padding = `# ${"x".repeat(1_000_000)}\n`;
    const { diagnostics } = loadScenario(EXAMPLE_TEXT + padding, {
      source: "text",
      limits: { maxBytes: 2_000_000 },
    });
    assert.deepEqual(errorsOf(diagnostics), []);
  });

  it("stops an alias bomb with sdl.source_limit instead of expanding it", () => {
    const levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level <= 9; level++) {
      const refs = Array.from({ length: 10 }, () => `*a${level - 1}`).join(", ");
      levels.push(`a${level}: &a${level} [${refs}]`);
    }
    const text = `${EXAMPLE_TEXT}variables:\n${levels.map((line) => `  ${line}`).join("\n")}\n`;
    const { scenario, diagnostics } = loadScenario(text, { source: "text" });
    assert.equal(scenario, undefined);
    // The 10 001st dereference happens deep inside the expansion of *a3 under a4.
    assert.deepEqual(errorsOf(diagnostics), [{ code: "sdl.source_limit", path: "/variables/a4/7/8/9/3" }]);
  });

  it("counts aliases against a configurable limit", () => {
    const text = `${EXAMPLE_TEXT}variables:\n  base: &base [1]\n  one: *base\n  two: *base\n`;
    assert.deepEqual(errorsOf(loadScenario(text, { source: "text" }).diagnostics), []);
    const limited = loadScenario(text, { source: "text", limits: { maxAliases: 1 } });
    assert.deepEqual(errorsOf(limited.diagnostics), [{ code: "sdl.source_limit", path: "/variables/two" }]);
  });

  it("reports a document that is not a mapping", () => {
    const { diagnostics } = loadScenario("- just\n- a list\n", { source: "text" });
    assert.deepEqual(errorsOf(diagnostics), [{ code: "sdl.parse", path: "" }]);
  });

  it("reports empty input as a parse error", () => {
    for (const text of ["", "   \n"]) {
      const { diagnostics } = loadScenario(text, { source: "text" });
      assert.deepEqual(errorsOf(diagnostics), [{ code: "sdl.parse", path: "" }]);
      assert.deepEqual([diagnostics[0]?.line, diagnostics[0]?.column], [1, 1]);
    }
  });

  it("reports an unreadable path as sdl.file.unreadable with the file name", () => {
    const { scenario, diagnostics } = loadScenario("/nonexistent/dir/scenario.yaml");
    assert.equal(scenario, undefined);
    assert.equal(diagnostics.length, 1);
    assert.equal(diagnostics[0]?.code, "sdl.file.unreadable");
    assert.equal(diagnostics[0]?.file, "/nonexistent/dir/scenario.yaml");
    assert.equal(diagnostics[0]?.line, 1);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_DIAGNOSTICS_PER_CODE } from "../../src/input/index.js";
import { DiagnosticCode, loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_TEXT } from "../fixtures/scenarios/example.js";

describe("alias expansion is bounded by the file", () => {
  it("a 3 KB self-referencing alias list: each alias is resolved once, one cycle each, 20 lines then a count", () => {
    const aliases = 1_000;
    const text = `${EXAMPLE_TEXT}variables:\n  a: &x [${Array(aliases).fill("*x").join(",")}]\n`;
    const { diagnostics } = loadScenario(text, { source: "text" });
    // Expanding each alias again inside its own anchor passed the alias limit; resolved once, it does not.
    assert.equal(
      diagnostics.some((d) => d.code === DiagnosticCode.sourceLimit),
      false,
    );
    const cycles = diagnostics.filter((d) => d.code === DiagnosticCode.aliasCycle);
    assert.equal(cycles.length, MAX_DIAGNOSTICS_PER_CODE + 1);
    assert.deepEqual(
      cycles.slice(0, 2).map((d) => d.path),
      ["/variables/a/0", "/variables/a/1"],
    );
    assert.equal(cycles.at(-1)?.message, `and ${aliases - MAX_DIAGNOSTICS_PER_CODE} more`);
  });

  it("an anchor used many times is converted once and shared; the expanded-node limit still counts every use", () => {
    const uses = Array.from({ length: 50 }, (_, i) => `  u${i}: *base`).join("\n");
    const text = `${EXAMPLE_TEXT}variables:\n  base: &base [1, 2, 3]\n${uses}\n`;
    assert.deepEqual(
      loadScenario(text, { source: "text" }).diagnostics.filter((d) => d.severity === "error"),
      [],
    );
    // Each use counts its alias and the four nodes it expands to: 6 + 5 × 39 nodes pass 200 at u38's last item.
    const bare = `variables:\n  base: &base [1, 2, 3]\n${uses}\n`;
    const limited = loadScenario(bare, { source: "text", limits: { maxNodes: 200 } });
    assert.deepEqual(
      limited.diagnostics.map((d) => [d.code, d.path]),
      [[DiagnosticCode.sourceLimit, "/variables/u38/2"]],
    );
  });
});

describe("repeated scenario diagnostics are capped per code", () => {
  it("2 000 repeats of one key: the first 20, then one line 'and 1979 more'", () => {
    const keys = Array.from({ length: 2_000 }, () => "  k: 1").join("\n");
    const { diagnostics } = loadScenario(`${EXAMPLE_TEXT}variables:\n${keys}\n`, { source: "text" });
    const repeats = diagnostics.filter((d) => d.code === DiagnosticCode.mappingKeyConflict);
    assert.equal(repeats.length, MAX_DIAGNOSTICS_PER_CODE + 1);
    assert.equal(repeats.at(-1)?.message, "and 1979 more");
    assert.equal(repeats.at(-1)?.path, "/variables/k");
  });
});

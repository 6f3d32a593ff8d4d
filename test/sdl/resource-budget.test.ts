import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadScenario } from "../../src/sdl/index.js";
import { BUDGET_RECIPES, buildBudgetCase, RAES_BUDGET_VERDICTS } from "../fixtures/v3-budget/cases.js";

const POLICY = "/behavior_specifications/participant-behavior/autonomous_execution";

function errorsOf(text: string) {
  return loadScenario(text, { source: "text" }).diagnostics.filter((d) => d.severity === "error");
}

function judge(text: string): { verdict: "valid" | "invalid"; codes: string[] } {
  const errors = errorsOf(text);
  return {
    verdict: errors.length === 0 ? "valid" : "invalid",
    codes: [...new Set(errors.map((d) => d.code))].sort(),
  };
}

describe("v3 resource-budget validation against RAES's recorded verdicts", () => {
  it("has a RAES verdict for every case, and both valid and invalid cases", () => {
    for (const recipe of BUDGET_RECIPES) assert.ok(RAES_BUDGET_VERDICTS[recipe.id], recipe.id);
    const verdicts = BUDGET_RECIPES.map((recipe) => RAES_BUDGET_VERDICTS[recipe.id]?.verdict);
    assert.ok(verdicts.filter((v) => v === "valid").length >= 4);
    assert.ok(verdicts.filter((v) => v === "invalid").length >= 40);
  });

  for (const recipe of BUDGET_RECIPES) {
    it(`${recipe.id}: same verdict and codes as RAES`, () => {
      const raes = RAES_BUDGET_VERDICTS[recipe.id];
      assert.ok(raes);
      const text = buildBudgetCase(recipe);
      assert.deepEqual(judge(text), { verdict: raes.verdict, codes: [...raes.codes] });
      // Same code is not enough: a model error must be found where RAES found it (the budget or the policy).
      if (raes.stage === "parse") {
        const paths = errorsOf(text).map((d) => d.path);
        assert.ok(
          paths.every((path) => path.startsWith(POLICY)),
          paths.join(" "),
        );
        if (raes.messages.some((m) => m.includes("/resource_budget"))) {
          assert.ok(
            paths.some((path) => path.startsWith(`${POLICY}/resource_budget`)),
            paths.join(" "),
          );
        }
      }
    });
  }
});

describe("v3 resource-budget size bounds (RAES's: 1024 owners, 4096 dimensions)", () => {
  it("refuses 4097 dimensions with sdl.model.invalid at /resource_budget/dimensions, in bounded time", () => {
    const dims: Record<string, unknown> = {};
    for (let i = 0; i < 4097; i++) {
      dims[`d${i}`] = {
        owner_ref: "participant",
        pool_ref: `p${i}`,
        resource_kind: "action_rate",
        unit: "actions",
        accounting_mode: "windowed_counter",
        meter_profile_ref: "m",
        limit: 1,
        reservation: 1,
        reset: "run",
        window_ticks: 1,
        ...(i > 0 ? { parent_budget_ref: `d${i - 1}` } : {}),
      };
    }
    const text = buildBudgetCase({ id: "many", ops: [["set", "@/dimensions", dims]] });
    // Above the default source limit, so the limit is raised to reach the budget's own bound.
    const errors = loadScenario(text, {
      source: "text",
      limits: { maxBytes: 4_000_000, maxTokens: 1_000_000 },
    }).diagnostics.filter((d) => d.severity === "error");
    assert.ok(
      errors.some((d) => d.code === "sdl.model.invalid" && d.path === `${POLICY}/resource_budget/dimensions`),
      JSON.stringify(errors.slice(0, 3)),
    );
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { CompileError, CompileErrorCode, compileScenario } from "../../src/compiler/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import {
  BUDGET_RECIPES,
  buildBudgetCase,
  RAES_BUDGET_COMPILED,
  V3_EXAMPLE,
} from "../fixtures/v3-budget/cases.js";

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function compileCase(id: string) {
  const recipe = BUDGET_RECIPES.find((candidate) => candidate.id === id);
  assert.ok(recipe, id);
  const loaded = loadScenario(buildBudgetCase(recipe), { source: "text" });
  assert.ok(loaded.scenario, id);
  return compileScenario(loaded.scenario);
}

/** raes-ts's compiled budget in RAES's field names, keyed by policy address like the fixture. */
function asRaes(id: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const policy of Object.values(compileCase(id).autonomousPolicies)) {
    const { resourceOwners, resourceDemands, resourceFairness } = policy;
    assert.ok(
      resourceOwners && resourceDemands && resourceFairness,
      `${policy.address} has no compiled budget`,
    );
    const rename = (value: object) =>
      Object.fromEntries(Object.entries(value).map(([key, field]) => [snake(key), field]));
    out[policy.address] = {
      max_in_flight: policy.maxInFlight,
      resource_owners: resourceOwners.map(rename),
      resource_demands: resourceDemands.map(rename),
      resource_fairness: rename(resourceFairness),
    };
  }
  return out;
}

describe("v3 resource-budget compilation against RAES's compiled runtime model", () => {
  const compiled = Object.entries(RAES_BUDGET_COMPILED);

  it("has RAES's compiled budget for the example and every other valid case", () => {
    assert.ok(compiled.length >= 5);
    assert.ok(RAES_BUDGET_COMPILED.base);
  });

  for (const [id, raes] of compiled) {
    if ("compile_error" in raes) {
      it(`${id}: refused with compiler.resource-owner-unresolved, as RAES's compiler refuses it`, () => {
        assert.throws(
          () => compileCase(id),
          (error: unknown) =>
            error instanceof CompileError && error.code === CompileErrorCode.resource_owner_unresolved,
        );
      });
      continue;
    }
    it(`${id}: owners, demands and fairness field for field as RAES compiles them`, () => {
      assert.deepEqual(asRaes(id), raes);
    });
  }

  it("compiles only RAES's legacy budgets for a v2 policy, none authored", () => {
    const text = readFileSync(V3_EXAMPLE.replace("resource-v3", "activity-v2"), "utf8");
    const loaded = loadScenario(text, { source: "text" });
    assert.ok(loaded.scenario);
    const [policy] = Object.values(compileScenario(loaded.scenario).autonomousPolicies);
    assert.equal(policy?.profile, "participant-autonomous-execution/v2");
    assert.deepEqual(
      policy?.resourceOwners?.map((o) => o.ownerId),
      ["legacy-participant"],
    );
    assert.ok((policy?.resourceDemands ?? []).every((d) => d.provenance !== "authored"));
  });
});

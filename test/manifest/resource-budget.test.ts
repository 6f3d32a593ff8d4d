import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { CompiledAutonomousPolicy, RuntimeModel } from "../../src/compiler/index.js";
import { compileScenario } from "../../src/compiler/index.js";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/manifest/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import { V3_EXAMPLE, V3_MANIFEST } from "../fixtures/v3-budget/cases.js";
import {
  RAES_ADMISSION as RAES,
  ADMISSION_RECIPES as RECIPES,
  type AdmissionRecipe as Recipe,
} from "./budget-cases.js";

function v3Model() {
  const loaded = loadScenario(readFileSync(V3_EXAMPLE, "utf8"), { source: "text" });
  assert.ok(loaded.scenario);
  return compileScenario(loaded.scenario);
}

/** Applies a recipe to participant_runtime.resource_budgets of the v3 manifest (as record-admission.py does). */
function mutated(recipe: Recipe): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(V3_MANIFEST, "utf8")) as {
    participant_runtime: Record<string, unknown>;
  };
  for (const op of recipe.ops) {
    if (op[1] === "") {
      delete manifest.participant_runtime.resource_budgets;
      continue;
    }
    const keys = op[1].split("/");
    let parent = manifest.participant_runtime.resource_budgets as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
    const last = keys.at(-1) ?? "";
    if (Array.isArray(parent) && op[0] === "delete") parent.splice(Number(last), 1);
    else if (op[0] === "delete") delete parent[last];
    else parent[last] = structuredClone(op[2]);
  }
  return {
    ...manifest,
    ...(recipe.contracts === undefined
      ? {}
      : { supported_contract_versions: structuredClone(recipe.contracts) }),
    ...(recipe.time === undefined ? {} : { time: structuredClone(recipe.time) }),
  };
}

describe("v3 registration against the manifest's declared pools (RAES's recorded admission)", () => {
  const model = v3Model();

  it("the v3 example manifest admits the compiled v3 example with no diagnostic", () => {
    const check = checkManifest(JSON.parse(readFileSync(V3_MANIFEST, "utf8")), model);
    assert.deepEqual(
      check.diagnostics.filter((d) => d.severity === "error"),
      [],
    );
    assert.ok(check.manifest?.participantRuntime.resourceBudgets);
    assert.equal(check.manifest?.participantRuntime.resourceBudgets?.configuredPools.length, 8);
  });

  it("has RAES's answer for every case", () => {
    for (const recipe of RECIPES) assert.ok(RAES[recipe.id], recipe.id);
    assert.ok(RECIPES.length >= 15);
    // RAES's four resource-budget contracts of supported_contract_versions, each missing, and its list rules.
    assert.ok(RECIPES.filter((r) => r.contracts !== undefined).length >= 17);
    // The cleanup, realization-envelope and time families RAES ties to the capabilities they name.
    for (const id of [
      "contracts-cleanup-plan-only",
      "contracts-realization-envelope",
      "contracts-time-family-part",
    ])
      assert.equal(RAES[id]?.verdict, "invalid", id);
  });

  for (const recipe of RECIPES) {
    it(`${recipe.id}: refused with the codes of RAES's gaps, or admitted as RAES admits it`, () => {
      const raes = RAES[recipe.id];
      assert.ok(raes);
      const errors = checkManifest(mutated(recipe), model).diagnostics.filter((d) => d.severity === "error");
      assert.deepEqual([...new Set(errors.map((d) => d.code))].sort(), [...raes.codes]);
    });
  }

  /** The compiled v3 example with its one policy's budget changed (what SDL validation would refuse). */
  function withBudget(change: (policy: CompiledAutonomousPolicy) => CompiledAutonomousPolicy): RuntimeModel {
    const [address, policy] = Object.entries(model.autonomousPolicies)[0] ?? [];
    assert.ok(address && policy);
    return { ...model, autonomousPolicies: { [address]: change(policy) } };
  }
  const manifest = () => JSON.parse(readFileSync(V3_MANIFEST, "utf8"));
  const codes = (m: RuntimeModel) =>
    [...new Set(checkManifest(manifest(), m).diagnostics.map((d) => d.code))].sort();

  it("refuses two budgets of one policy on one pool (manifest.resource-budget-pool-aliased)", () => {
    const aliased = withBudget((policy) => {
      const demands = policy.resourceDemands ?? [];
      const tokens = demands.find((d) => d.budgetId === "tokens");
      assert.ok(tokens);
      return { ...policy, resourceDemands: [...demands, { ...tokens, budgetId: "tokens-2", limit: 1 }] };
    });
    assert.deepEqual(codes(aliased), [Code.resource_budget_pool_aliased]);
  });

  it("refuses child limits above their parent (manifest.resource-budget-parent-overcommitted)", () => {
    const over = withBudget((policy) => ({
      ...policy,
      resourceDemands: (policy.resourceDemands ?? []).map((d) =>
        d.budgetId === "range-actions" ? { ...d, limit: 10 } : d,
      ),
    }));
    assert.deepEqual(codes(over), [Code.resource_budget_parent_overcommitted]);
  });

  it("refuses a protected policy on pools with no protected capacity (manifest.resource-budget-protected-capacity-missing)", () => {
    const protectedPolicy = withBudget((policy) => {
      assert.ok(policy.resourceFairness);
      return { ...policy, resourceFairness: { ...policy.resourceFairness, protected: true } };
    });
    const found = checkManifest(manifest(), protectedPolicy).diagnostics;
    assert.deepEqual(
      [...new Set(found.map((d) => d.code))],
      [Code.resource_budget_protected_capacity_missing],
    );
    // One per budget (protected capacity 0 < reservation) and one per pool (protected limits > 0).
    assert.equal(found.length, 16);
  });

  it("sums every policy's limits on a shared pool (all or nothing)", () => {
    const [address, policy] = Object.entries(model.autonomousPolicies)[0] ?? [];
    assert.ok(address && policy);
    const twice: RuntimeModel = {
      ...model,
      autonomousPolicies: { [address]: policy, [`${address}-b`]: { ...policy, address: `${address}-b` } },
    };
    const found = checkManifest(manifest(), twice).diagnostics.filter(
      (d) => d.code === Code.resource_budget_capacity_exceeded,
    );
    // Each pool's capacity equals one policy's limit, so two policies exceed all eight.
    assert.equal(found.length, 8);
  });
});

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ManifestDiagnosticCode as Code } from "../../src/manifest/index.js";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "v3-budget");

/** One mutation of participant_runtime.resource_budgets of the v3 example manifest. */
export type BudgetManifestOp = readonly ["set", string, unknown] | readonly ["delete", string];

/** One case of admission-recipes.json. */
export interface AdmissionRecipe {
  readonly id: string;
  readonly ops: readonly BudgetManifestOp[];
  /** The manifest's top-level `supported_contract_versions`, exactly (any JSON, as the case sets it). */
  readonly contracts?: unknown;
  /** The manifest's `time` section, when the case sets one. */
  readonly time?: unknown;
}

/** RAES's recorded admission of one case (record-admission.py). */
export interface RaesAdmission {
  readonly verdict: "admitted" | "gaps" | "invalid";
  readonly codes: readonly string[];
}

/** Every admission case, in authored order. */
export const ADMISSION_RECIPES: readonly AdmissionRecipe[] = (
  JSON.parse(readFileSync(join(FIXTURES, "admission-recipes.json"), "utf8")) as { cases: AdmissionRecipe[] }
).cases;

/** RAES's answers by case id. */
export const RAES_ADMISSION: Readonly<Record<string, RaesAdmission>> = (
  JSON.parse(readFileSync(join(FIXTURES, "raes-admission.json"), "utf8")) as {
    cases: Record<string, RaesAdmission>;
  }
).cases;

/** Codes only a hand-changed compiled model reaches (SDL validation already refuses these budgets). */
export const MODEL_ONLY_BUDGET_CODES = [
  Code.resource_budget_pool_aliased,
  Code.resource_budget_parent_overcommitted,
  Code.resource_budget_protected_capacity_missing,
] as const;

/** Every v3 admission code test/manifest/resource-budget.test.ts exercises. */
export const BUDGET_CODES: readonly string[] = [
  ...Object.values(RAES_ADMISSION).flatMap((answer) => answer.codes),
  ...MODEL_ONLY_BUDGET_CODES,
];

import { validateScenario } from "./check/index.js";
import type { Finding } from "./diagnostics.js";
import type { Scenario } from "./schema/index.js";

/** One semantic error of a decoded scenario: its code, JSON pointer and message. */
export interface ScenarioError {
  readonly code: Finding["code"];
  readonly path: string;
  readonly message: string;
}

/**
 * The semantic errors of a decoded scenario (the checks `loadScenario` runs after decoding), so a consumer
 * handed a scenario object can refuse one that has errors; empty for a scenario `loadScenario` returned.
 */
export function scenarioErrors(scenario: Scenario): readonly ScenarioError[] {
  const errors: ScenarioError[] = [];
  validateScenario(scenario, (finding) => {
    if ((finding.severity ?? "error") === "error")
      errors.push({ code: finding.code, path: finding.path, message: finding.message });
  });
  return errors;
}

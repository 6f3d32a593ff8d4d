import { checkSpecificationRefs, checkToolAffordances } from "./check-affordances.js";
import { checkAutonomousPolicies } from "./check-autonomous.js";
import { checkAgents, checkBoundaries, checkContentAndActions } from "./check-references.js";
import { checkTimeModel } from "./check-time.js";
import type { Finding } from "./diagnostics.js";
import { ScenarioIndex } from "./refs.js";
import type { Scenario } from "./scenario.js";
import { checkVocabularies } from "./vocabularies.js";

/** Runs every semantic check on a decoded scenario and reports all findings, never only the first. */
export function validateScenario(scenario: Scenario, report: (finding: Finding) => void): void {
  const index = new ScenarioIndex(scenario);
  checkAgents(index, report);
  checkContentAndActions(index, report);
  checkBoundaries(index, report);
  checkSpecificationRefs(index, report);
  checkVocabularies(index, report);
  checkAutonomousPolicies(index, report);
  checkToolAffordances(index, report);
  checkTimeModel(index, report);
}

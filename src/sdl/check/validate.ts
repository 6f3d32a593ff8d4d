import type { Finding } from "../diagnostics.js";
import { ScenarioIndex } from "../refs.js";
import type { Scenario } from "../schema/index.js";
import { checkSpecificationRefs, checkToolAffordances } from "./affordances.js";
import { checkAutonomousPolicies } from "./autonomous/index.js";
import { DeclarationAliases } from "./declarations.js";
import { checkInteractiveAccess } from "./interactive-access.js";
import { checkAuthorityScopeRefs, checkMixedControl } from "./mixed-control.js";
import { checkAgents, checkBoundaries, checkContentAndActions } from "./references.js";
import { checkTimeModel } from "./time.js";
import { checkVocabularies } from "./vocabularies.js";

/** Runs every semantic check on a decoded scenario and reports all findings, never only the first. */
export function validateScenario(scenario: Scenario, report: (finding: Finding) => void): void {
  const index = new ScenarioIndex(scenario);
  const aliases = new DeclarationAliases(scenario);
  checkAgents(index, aliases, report);
  checkInteractiveAccess(index, report);
  checkContentAndActions(index, report);
  checkBoundaries(index, report);
  checkSpecificationRefs(index, report);
  checkVocabularies(index, report);
  checkAutonomousPolicies(index, report);
  checkToolAffordances(index, report);
  checkTimeModel(index, report);
  checkAuthorityScopeRefs(index, aliases, report);
  checkMixedControl(index, aliases, report);
}

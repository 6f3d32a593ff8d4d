export { policyActionRefs, toolAffordanceRef } from "./check/index.js";
export { DiagnosticCode, Severity } from "./codes.js";
export type { Diagnostic } from "./diagnostics.js";
export { formatDiagnostic, hasErrors } from "./diagnostics.js";
export { isPortableIdentifier } from "./identifier.js";
export type { LoadOptions, LoadResult } from "./load.js";
export { loadScenario } from "./load.js";
export type { AddressableRef } from "./refs.js";
export { flattenEntities, resolveAddressableRef, ScenarioIndex, sectionRefName } from "./refs.js";
export { type ScenarioError, scenarioErrors } from "./scenario-errors.js";
export type {
  ActionContract,
  Agent,
  AutonomousPolicy,
  AutonomousPolicyV1,
  AutonomousPolicyV2,
  AutonomousPolicyV3,
  BehaviorSpecification,
  Clock,
  Entity,
  ObservationBoundary,
  ProgressionPolicy,
  ResourceBudget,
  ResourceBudgetDimension,
  Scenario,
  ScenarioContent,
  ScenarioNode,
  TemporalConstraint,
  TimeDomain,
  ToolAffordance,
} from "./schema/index.js";
export {
  AutonomousProfile,
  RESOURCE_ACCOUNTING,
  RESOURCE_KINDS,
  RESOURCE_UNIT,
  UNINTERPRETED_SECTIONS,
} from "./schema/index.js";
export type { SourceLimits } from "./source.js";
export { DEFAULT_SOURCE_LIMITS } from "./source.js";

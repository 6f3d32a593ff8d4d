export { toolAffordanceRef } from "./check-affordances.js";
export { policyActionRefs } from "./check-autonomous.js";
export { DiagnosticCode, Severity } from "./codes.js";
export type { Diagnostic } from "./diagnostics.js";
export { formatDiagnostic, hasErrors } from "./diagnostics.js";
export { isPortableIdentifier } from "./identifier.js";
export type { LoadOptions, LoadResult } from "./load.js";
export { loadScenario } from "./load.js";
export type { AddressableRef } from "./refs.js";
export { flattenEntities, resolveAddressableRef, ScenarioIndex, sectionRefName } from "./refs.js";
export type {
  ActionContract,
  Agent,
  BehaviorSpecification,
  Clock,
  ObservationBoundary,
  ProgressionPolicy,
  Scenario,
  ScenarioContent,
  ScenarioNode,
  TemporalConstraint,
  TimeDomain,
  ToolAffordance,
} from "./scenario.js";
export { UNINTERPRETED_SECTIONS } from "./scenario.js";
export { type ScenarioError, scenarioErrors } from "./scenario-errors.js";
export type {
  AutonomousPolicy,
  AutonomousPolicyV1,
  AutonomousPolicyV2,
  AutonomousPolicyV3,
} from "./schema-behavior.js";
export { AutonomousProfile } from "./schema-behavior.js";
export type { Entity } from "./schema-topology.js";
export type { SourceLimits } from "./source.js";
export { DEFAULT_SOURCE_LIMITS } from "./source.js";

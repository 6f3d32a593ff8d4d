export {
  type AutonomousPolicy,
  type AutonomousPolicyV1,
  type AutonomousPolicyV2,
  type AutonomousPolicyV3,
  AutonomousProfile,
} from "./behavior.js";
export {
  ACCOUNTING_MODES,
  type AccountingMode,
  RESET_MODES,
  RESOURCE_ACCOUNTING,
  RESOURCE_KINDS,
  RESOURCE_OWNER_KINDS,
  RESOURCE_UNIT,
  type ResetMode,
  type ResourceBudget,
  type ResourceBudgetDimension,
  type ResourceKind,
  type ResourceOwnerKind,
} from "./budget.js";
export {
  type ActionContract,
  type Agent,
  type BehaviorSpecification,
  type Clock,
  decodeScenario,
  type ObservationBoundary,
  type ProgressionPolicy,
  type Scenario,
  type ScenarioContent,
  type ScenarioNode,
  type TemporalConstraint,
  type TimeDomain,
  type ToolAffordance,
  UNINTERPRETED_SECTIONS,
} from "./scenario.js";
export { isMapping } from "./shape.js";
export type { Entity } from "./topology.js";

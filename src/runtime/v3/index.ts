export {
  commitHeld,
  type LedgerEntry,
  ledgerUnderPolicy,
  newLedger,
  type OperationPoint,
  type ReserveOutcome,
  reconciled,
  releaseHeld,
  reserve,
  THROTTLED,
  type Throttle,
  type V3Budget,
  type V3Plan,
} from "./ledger.js";
export {
  budgetStateRef,
  checkMeasurements,
  type MeasurementCheck,
  MeasurementCode,
  measurementRequirements,
  type ParticipantResourceMeasurement,
  type ResourceMeasurementRequirement,
} from "./measurement.js";
export { planBudgets } from "./plan.js";
export { budgetEvents, budgetStates, ledgerEntries, poolStates, type ResourcePoolStateView } from "./view.js";

export { fromExcluded } from "./clauses.js";
export {
  CLOCK_COLUMNS,
  type Column,
  columnNames,
  columnValues,
  INVOCATION_CLOSE_COLUMNS,
  INVOCATION_COLUMNS,
  SCHEDULER_COLUMNS,
  TOOL_ACTION_COLUMNS,
  TOOL_ACTION_SETTLE_COLUMNS,
} from "./columns.js";
export { type DriverFailure, isSystemUnavailable, storeError } from "./errors.js";
export {
  type HeldLeaseRow,
  type LeaseRow,
  type ListedLeaseRow,
  leaseOf,
  leaseStatements,
  type MemberRow,
  memberOf,
} from "./leases.js";
export { CHAIN_STEP, type Migration, migrations, SCHEMA_VERSION, schemaTooNew } from "./migrations.js";
export { SqlReads } from "./reads.js";
export {
  type Cells,
  CHAIN_COLUMNS,
  type ChainRow,
  type ClockRow,
  chainHead,
  DECISION_COLUMNS,
  type DecisionHeadRow,
  type DecisionRow,
  decisionHead,
  decisionRow,
  type EventRow,
  historyEvent,
  type InvocationCloseRow,
  type InvocationRow,
  invocationCloseRow,
  invocationRecord,
  invocationRow,
  operatorDecision,
  rowMappings,
  type SchedulerRow,
  schedulerRecord,
  schedulerRow,
  setColumns,
  type ToolActionRow,
  type ToolActionSettleRow,
  toolActionSettleRows,
  withChain,
} from "./records.js";
export {
  PACING_DEVIATION_COLUMNS,
  type PacingDeviationRow,
  pacingDeviationRecord,
  pacingDeviationRow,
  SERVICE_COLUMNS,
  type ServiceRow,
  serviceRecord,
  serviceRow,
} from "./services.js";
export {
  CONTROL_PLANE_TABLES,
  describeGaps,
  type FoundShape,
  POSTGRES_SHAPE,
  type SchemaShape,
  SQLITE_SHAPE,
  shapeGaps,
} from "./shape.js";

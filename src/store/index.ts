export {
  DEFAULT_STORE_URL,
  type ResourceBudgetEventQuery,
  type ResourceBudgetEventRecord,
  type ResourceEventCounts,
  type ResourceUseRow,
  readStoreUrl,
  resourceEventNote,
  resourceUseRows,
  STORE_URL_FORMS,
  type StoreLocation,
  type StoreUrlReading,
} from "../records/index.js";
export { applyClockChange, sameClock } from "./clock.js";
export {
  ClockMovedError,
  LeaseLostError,
  ResourcePoolMovedError,
  StoreConflictError,
  StoreDriverMissingError,
  StoreErrorCode,
  StoreMissingError,
  StoreNotAStoreError,
  StoreUnavailableError,
} from "./errors.js";
export { MemoryControlPlaneStore, type MemoryStoreOptions } from "./memory/index.js";
export { type OpenStoreOptions, openControlPlaneStore, StoreUrlError } from "./open.js";
export { eventPages, operationPages, operationPagesOldestFirst, PAGE_SIZE } from "./pages.js";
export {
  type ActivityContinuation,
  type ActivityLifecycle,
  type ClockChange,
  type ClockFold,
  type ClockRecord,
  type ControlPlaneStore,
  type Fence,
  type HistoryQuery,
  type InvocationCommit,
  type InvocationRecord,
  type Lease,
  type OperationCursor,
  type OperationEntry,
  type OperationQuery,
  type ProcessMember,
  type ResourceLedger,
  type ResourcePoolVersion,
  SchedulerLifecycle,
  type SchedulerRecord,
  SchedulerStopReason,
  STORE_DATA_WRITES,
  type TimingDisposition,
  type ToolActionQuery,
  type ToolActionRecord,
} from "./types.js";

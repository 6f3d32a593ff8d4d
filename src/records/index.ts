export { isAddress, isAddressSegment } from "./address.js";
export { ApprovalExpiry, type ApprovalRecord, ApprovalState } from "./approval.js";
export { canonicalDigest, canonicalJson, textDigest } from "./canonical.js";
export {
  type ChainAnchor,
  type ChainHead,
  canonicalAroundSequence,
  chainDigest,
  chainGenesis,
  jcsDigest,
  rfc8785,
  UNANCHORED,
} from "./chain.js";
export { codeOf, isPackageMissing } from "./codes.js";
export {
  type ActivityProvenance,
  type ActivityRandomAddress,
  type HistoryEvent,
  type HistoryEventDraft,
  HistoryEventType,
  type InvocationToolContext,
  LifecyclePhase,
  ObservationStatus,
  type TemporalContext,
  type WireActionResult,
} from "./history.js";
export {
  DiagnosticSeverity,
  type Operation,
  type OperationDiagnostic,
  OperationDiagnosticCode,
  OperationKind,
  OperationState,
  type ResolutionRecord,
  RuntimeDomain,
  ToolActionResolution,
} from "./operation.js";
export {
  DEFAULT_OPERATION_LIMIT,
  invocationEntry,
  invocationStateMatches,
  mergeNewestFirst,
  newestFirst,
  type OperationCursor,
  type OperationEntry,
  type OperationQuery,
  queriedKinds,
  TOOL_ACTION_STATE_CONDITIONS,
  toolActionEntry,
} from "./operation-query.js";
export {
  operationFromInvocation,
  operationFromToolAction,
  toolActionOperationState,
} from "./operation-view.js";
export {
  appendDecision,
  EMPTY_OPERATOR_CHAIN,
  headAfter,
  OPERATOR_GENESIS,
  type OperatorChainHead,
  type OperatorDecision,
  type OperatorDecisionDraft,
  OperatorDecisionKind,
} from "./operator.js";
export {
  acceptsWork,
  type ControlStep,
  controlTransition,
  EPISODE_STATE_SCHEMA,
  type EpisodeControlAction,
  type EpisodeEventType,
  type EpisodeStatus,
  type EpisodeStep,
  type EpisodeTerminalReason,
  EXECUTION_SERVICE_STATE_SCHEMA,
  ExecutionControlAction,
  type ExecutionLifecycle,
  initializeEpisode,
  MAX_SERVICE_EVIDENCE_REFS,
  nextEpisode,
  ParticipantControlCode,
  type ParticipantEpisodeEvent,
  type ParticipantEpisodeState,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
  terminateEpisode,
} from "./participant/index.js";
export {
  RESOURCE_LOG_LIMIT,
  type ResourceBudgetEvent,
  type ResourceBudgetInfo,
  type ResourceBudgetShare,
  type ResourceBudgetStateView,
  type ResourceHold,
  type ResourceLedger,
  type ResourceLogEntry,
  ResourceTransition,
  type ResourceUseRow,
  resourceUseRows,
} from "./resource.js";
export {
  type ActivityContinuation,
  type ActivityLifecycle,
  type ClockRecord,
  type InvocationRecord,
  MAX_REFUSED_CALLS,
  type RefusedCall,
  SchedulerLifecycle,
  type SchedulerRecord,
  SchedulerStopReason,
  type TimingDisposition,
} from "./scheduler.js";
export {
  DEFAULT_STORE_URL,
  isPostgresStoreUrl,
  MEMORY_STORE_URL,
  readStoreUrl,
  STORE_URL_FORMS,
  type StoreLocation,
  type StoreUrlReading,
  sqliteStorePath,
  sqliteStoreUrl,
} from "./store-url.js";
export {
  approvalWithheldReason,
  type ParticipantToolActionRequest,
  ToolActionPhase,
  type ToolActionRecord,
  ToolActionSettlement,
  toolActionAt,
  UnknownReason,
  WithheldReason,
} from "./tool-action.js";
export { TRACER_NAME, TraceName } from "./trace-names.js";

export {
  DiagnosticSeverity,
  type Operation,
  type OperationDiagnostic,
  OperationDiagnosticCode,
  OperationKind,
  OperationState,
  RuntimeDomain,
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
} from "./query.js";
export {
  operationFromInvocation,
  operationFromToolAction,
  toolActionOperationState,
} from "./view.js";

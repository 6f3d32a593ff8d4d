export {
  type CompiledAffordanceBinding,
  type CompiledAutonomousPolicy,
  type CompiledExecutionBinding,
  compileScenario,
  RUNTIME_MODEL_SCHEMA,
  type RuntimeModel,
  toWireJson,
} from "./compiler/index.js";
export {
  getParticipantHistoryView,
  type ParticipantHistoryEvent,
} from "./history/index.js";
export {
  type BackendManifest,
  checkManifest,
  type ExecutionBindingOffer,
  type ManifestCheck,
  type ManifestDiagnostic,
  ManifestDiagnosticCode,
  RegistrationError,
  RegistrationErrorCode,
} from "./manifest/index.js";
export {
  ResolutionError,
  ResolutionRefusal,
  resolveToolAction,
} from "./operations/index.js";
export {
  type AdmitDecision,
  connectToolActionPort,
  type DispatchReceipt,
  exposeToolActionPort,
  INVOCATION_TOOL_ACTIONS_V1,
  type InvocationToolActionPort,
  type ParticipantToolActionOutcome,
  ParticipantToolActionRefusal,
  type ParticipantToolActionRequest,
  type PortAck,
  type ServedToolActionPort,
  serveToolActionPort,
  type ToolActionPortAddress,
  transition,
} from "./port/index.js";
export {
  canonicalDigest,
  type HistoryEvent,
  HistoryEventType,
  type InvocationToolContext,
  LifecyclePhase,
  ObservationStatus,
  type Operation,
  OperationKind,
  OperationState,
  SchedulerLifecycle,
  SchedulerStopReason,
  ToolActionPhase,
  ToolActionResolution,
  ToolActionSettlement,
} from "./records/index.js";
export {
  type ImplementationIdentity,
  type InvocationSummary,
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  ParticipantActionStatus,
  type ParticipantCrossingPolicy,
  type ParticipantRuntime,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeError,
  RuntimeErrorCode,
  RuntimeManager,
  type RuntimeManagerOptions,
  type RuntimeObserver,
  type StepSummary,
} from "./runtime/index.js";
export {
  type Diagnostic,
  DiagnosticCode,
  type LoadOptions,
  type LoadResult,
  loadScenario,
} from "./sdl/index.js";
export {
  type ControlPlaneStore,
  DEFAULT_STORE_URL,
  LeaseLostError,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  StoreConflictError,
  StoreUnavailableError,
} from "./store/index.js";

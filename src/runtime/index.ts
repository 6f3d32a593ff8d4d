// Owner ids and the dead-owner rule live with the operations, so read commands judge owners as `raes run` does.
export { isDeadLocalOwner, newOwnerId, takeParticipantLease } from "../operations/index.js";
export { type RuntimeTimers, sleep, systemTimers } from "./clock/index.js";
export {
  ParticipantControlError,
  type ParticipantFailure,
  ParticipantsFailedError,
  RuntimeError,
  RuntimeErrorCode,
  survivedLeaseLoss,
} from "./errors.js";
export {
  consumedLine,
  type InvocationSummary,
  type LateOutcome,
  type RecoveredInvocation,
  type ResourceOutcome,
  recoverInterruptedInvocations,
  settleInterrupted,
} from "./invocation/index.js";
export {
  DEFAULT_LEASE_TTL_MS,
  PacedRunEnd,
  type PacedRunOptions,
  type PacedRunSummary,
  type PacedStep,
  type ParticipantControlOptions,
  type ParticipantCrossingPolicy,
  type ParticipantEpisodeOptions,
  type PolicyChangeAllowance,
  type ResourceThrottle,
  RuntimeManager,
  type RuntimeManagerOptions,
  type RuntimeObserver,
  realTimePacing,
  type StepOptions,
  type StepSummary,
  type WallPacing,
  wallPacing,
} from "./manager/index.js";
export { type ModelActionContext, ReferenceAutonomousParticipantRuntime } from "./reference-runtime.js";
export {
  dueTicks,
  episodeIdFor,
  observationPointFor,
  outerActionInstanceId,
  type ParticipantShare,
  planShare,
  type SchedulePosition,
  type SharePlan,
  type ShareView,
} from "./schedule/index.js";
export {
  type ClockState,
  type ImplementationIdentity,
  type InvocationControl,
  type NativeOutcome,
  type OuterOutcomeStatus,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  ParticipantActionStatus,
  type ParticipantEpisodeResetRequest,
  type ParticipantRuntime,
  type ParticipantSnapshot,
} from "./types.js";
export {
  type ContinuationView,
  continuationView,
  parseStochasticControl,
  resolveActivityControls,
  type StochasticControl,
} from "./v2/index.js";
export {
  MeasurementCode,
  type ParticipantResourceMeasurement,
  type ResourceMeasurementRequirement,
  type ResourcePoolStateView,
} from "./v3/index.js";
export {
  type AutonomousExecutionState,
  type ContextViewOptions,
  getParticipantHistoryView,
  getParticipantStatusView,
  type ParticipantContextView,
  type ParticipantHistoryView,
  type ParticipantStatusView,
  type ServiceHealth,
  type StoreViewSource,
  type ViewBehaviorEvent,
  type ViewEpisodeEvent,
  type ViewEpisodeState,
  type ViewExecutionService,
} from "./views/index.js";

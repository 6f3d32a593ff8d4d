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
  recoverInterruptedInvocations,
  settleInterrupted,
} from "./invocation/index.js";
export {
  PacedRunEnd,
  type PacedRunOptions,
  type PacedRunSummary,
  type PacedStep,
  type ParticipantControlOptions,
  type ParticipantCrossingPolicy,
  RuntimeManager,
  type RuntimeManagerOptions,
  type RuntimeObserver,
  type StepOptions,
  type StepSummary,
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

// Owner ids and the dead-owner rule live with the operations, so read commands judge owners as `raes run` does.
export { isDeadLocalOwner, newOwnerId, takeParticipantLease } from "../operations/index.js";
export {
  parseStochasticControl,
  resolveActivityControls,
  type StochasticControl,
} from "./activity-controls.js";
export { type ContinuationView, continuationView } from "./activity-state.js";
export type { LateOutcome } from "./deadline.js";
export {
  type ParticipantFailure,
  ParticipantsFailedError,
  RuntimeError,
  RuntimeErrorCode,
  survivedLeaseLoss,
} from "./errors.js";
export type { InvocationSummary } from "./invocation.js";
export { RuntimeManager } from "./manager.js";
export type {
  ParticipantCrossingPolicy,
  RuntimeManagerOptions,
  RuntimeObserver,
  StepOptions,
  StepSummary,
} from "./manager-options.js";
export {
  PacedRunEnd,
  type PacedRunOptions,
  type PacedRunSummary,
  type PacedStep,
} from "./paced-run.js";
export type { ParticipantShare } from "./participant-leases.js";
export type { SchedulePosition } from "./positions.js";
export {
  consumedLine,
  type RecoveredInvocation,
  recoverInterruptedInvocations,
  settleInterrupted,
} from "./recovery.js";
export { type ModelActionContext, ReferenceAutonomousParticipantRuntime } from "./reference-runtime.js";
export { dueTicks, episodeIdFor, observationPointFor, outerActionInstanceId } from "./schedule.js";
export { planShare, type SharePlan, type ShareView } from "./share.js";
export { type RuntimeTimers, sleep, systemTimers } from "./timers.js";
export {
  type ClockState,
  type ImplementationIdentity,
  type InvocationControl,
  type NativeOutcome,
  type OuterOutcomeStatus,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  ParticipantActionStatus,
  type ParticipantRuntime,
  type ParticipantSnapshot,
} from "./types.js";

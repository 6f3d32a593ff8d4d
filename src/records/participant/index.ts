export { type EpisodeStep, initializeEpisode, nextEpisode, terminateEpisode } from "./episode.js";
export {
  type PacingDeviationRecord,
  pacingDeviationRef,
  serviceReadback,
  withPacingHealth,
} from "./pacing.js";
export {
  abandonedDrain,
  acceptsWork,
  type ControlStep,
  controlTransition,
  drainingState,
  EPISODE_STATE_SCHEMA,
  type EpisodeControlAction,
  type EpisodeEventType,
  type EpisodeStatus,
  type EpisodeTerminalReason,
  EXECUTION_SERVICE_STATE_SCHEMA,
  ExecutionControlAction,
  type ExecutionLifecycle,
  executionResetsOf,
  MAX_SERVICE_EVIDENCE_REFS,
  ParticipantControlCode,
  type ParticipantEpisodeEvent,
  type ParticipantEpisodeState,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
} from "./service.js";

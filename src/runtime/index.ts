export {
  type ClockState,
  type NativeOutcome,
  type OuterOutcomeStatus,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  ParticipantActionStatus,
  type ParticipantRuntime,
  type ParticipantSnapshot,
} from "./types.js";

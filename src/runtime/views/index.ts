export { schedulerStateKey } from "./scheduler-state.js";
export type {
  AutonomousExecutionState,
  ContextViewOptions,
  ParticipantContextView,
  ParticipantHistoryView,
  ParticipantStatusView,
  ServiceHealth,
  ViewActionResult,
  ViewBehaviorEvent,
  ViewCompleteness,
  ViewEpisodeEvent,
  ViewEpisodeState,
  ViewExecutionService,
  ViewTemporalContext,
} from "./types.js";
export {
  autonomousExecutionStates,
  getParticipantHistoryView,
  getParticipantStatusView,
  participantContextView,
  participantHistoryView,
  participantStatusView,
  type StoreViewSource,
  type ViewSource,
} from "./views.js";

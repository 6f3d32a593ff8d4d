export {
  actorProvenance,
  invocationToolContext,
  LifecyclePhase,
  type OuterResult,
  outerTriple,
  toolActionTriple,
} from "./events.js";
export {
  type ActivityProvenance,
  type ActivityRandomAddress,
  type HistoryEvent,
  type HistoryEventDraft,
  HistoryEventType,
  type InvocationToolContext,
  ObservationStatus,
  type WireActionResult,
} from "./types.js";
export { getParticipantHistoryView, type HistorySource, type ParticipantHistoryEvent } from "./view.js";

export {
  actorProvenance,
  type EventFrame,
  invocationToolContext,
  LifecyclePhase,
  type OuterResult,
  outerTriple,
  temporalContexts,
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
  type TemporalContext,
  type WireActionResult,
} from "./types.js";
export { type HistorySource, type ParticipantHistoryEvent, participantHistoryEvents } from "./view.js";

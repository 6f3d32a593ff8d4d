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
} from "../records/index.js";

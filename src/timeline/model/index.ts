export {
  type GroupedInvocation,
  InterleavedHistoryError,
  InvocationGrouper,
  joinOperations,
  operationIds,
} from "./stream.js";
export {
  type ActionTimes,
  actionTimes,
  eventTime,
  invocationSpan,
  type SpanEnd,
  timesLabel,
} from "./time.js";
export {
  buildTimeline,
  needsOperator,
  needsResolution,
  observationOf,
  type PacingDeviation,
  type ParticipantDecision,
  type PendingApproval,
  SETTLEMENTS,
  settlementOf,
  type Timeline,
  type TimelineChain,
  type TimelineEvent,
  type TimelineInput,
  type TimelineInvocation,
  type TimelineParticipant,
  type TimelineScheduler,
  type TimelineToolAction,
} from "./timeline.js";

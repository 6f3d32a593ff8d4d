export {
  type ActionTimes,
  actionTimes,
  eventTime,
  invocationSpan,
  type SpanEnd,
  timelineSpan,
  timesLabel,
} from "./time.js";
export {
  buildTimeline,
  countBySettlement,
  indeterminateCounts,
  needsResolution,
  observationOf,
  SETTLEMENTS,
  settlementOf,
  type Timeline,
  type TimelineInput,
  type TimelineInvocation,
  type TimelineParticipant,
  type TimelineScheduler,
  type TimelineToolAction,
} from "./timeline.js";

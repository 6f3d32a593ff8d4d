export {
  type ActionTimes,
  actionTimes,
  eventTime,
  invocationSpan,
  timeSpan,
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
  type TimelineChain,
  type TimelineInput,
  type TimelineInvocation,
  type TimelineParticipant,
  type TimelineScheduler,
  type TimelineToolAction,
} from "./timeline.js";

export { type DueWork, ScheduleBook, type ScheduleBookOptions } from "./book.js";
export {
  dueTicks,
  episodeIdFor,
  observationPointFor,
  outerActionInstanceId,
  type SchedulePosition,
  schedulePositions,
} from "./cadence.js";
export {
  type LoadTaken,
  ParticipantLeases,
  type ParticipantLeasesOptions,
  type ParticipantShare,
  shareChanged,
  shareTeller,
} from "./leases.js";
export { type PlanInput, planSchedules, type ScheduleSpec, scheduleKey, specOf } from "./plan.js";
export {
  type CloseFacts,
  type SegmentStart,
  schedulerAfterClose,
} from "./scheduler-record.js";
export { planShare, type SharePlan, type ShareView } from "./share.js";

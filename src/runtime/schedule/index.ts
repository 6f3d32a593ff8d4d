export { type DueWork, ScheduleBook, type ScheduleBookOptions, type ServiceView } from "./book.js";
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
  type ParticipantShare,
  shareChanged,
} from "./leases.js";
export { planSchedules, type ScheduleSpec, scheduleKey, specOf } from "./plan.js";
export { policyChangeBy, schedulerAfterClose } from "./scheduler-record.js";
export { planShare, type SharePlan, type ShareView } from "./share.js";

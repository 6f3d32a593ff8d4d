export {
  type ParticipantControlOptions,
  type ParticipantCrossingPolicy,
  RuntimeManager,
  type RuntimeManagerOptions,
  type RuntimeObserver,
} from "./manager.js";
export {
  PacedRunEnd,
  type PacedRunOptions,
  type PacedRunSummary,
  type PacedStep,
  type StepOptions,
  type StepSummary,
} from "./paced-run.js";
export { type WallPacing, wallPacing } from "./pacing.js";
export { realTimePacing } from "./service-pacing.js";
export type { ResourceThrottle } from "./v3.js";

export { RuntimeManager } from "./manager.js";
export type {
  ParticipantControlOptions,
  ParticipantCrossingPolicy,
  ParticipantEpisodeOptions,
  PolicyChangeAllowance,
  RuntimeManagerOptions,
  RuntimeObserver,
} from "./options.js";
export { DEFAULT_LEASE_TTL_MS } from "./options.js";
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

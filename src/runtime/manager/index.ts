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

export {
  CONTINUATION_FIELDS,
  type ContinuationView,
  continuationView,
  pausedContinuation,
  resumedContinuation,
  segmentStart,
} from "./continuation.js";
export {
  parseStochasticControl,
  type ResolvedControl,
  resolveActivityControls,
  type StochasticControl,
} from "./controls.js";
export {
  DrawCoordinate,
  drawAddress,
  drawV2Integer,
  nextTiming,
  selectCandidate,
  type TimingSelection,
  tickIsEligible,
  type V2Stream,
  v2AddressBytes,
} from "./draws.js";
export {
  type AttemptOutcome,
  attemptId,
  attemptOutcome,
  CONSUMED_ATTEMPT,
  type DueDecision,
  eligibleCandidates,
  type PlannedAttempt,
  planDue,
  settleAttempt,
  type V2Plan,
} from "./engine.js";
export { v2Provenance, withProvenance } from "./provenance.js";

export {
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
  drawAddress,
  drawV2Integer,
  type V2Stream,
  v2AddressBytes,
} from "./draws.js";
export {
  attemptOutcome,
  CONSUMED_ATTEMPT,
  type PlannedAttempt,
  planDue,
  settleAttempt,
  type V2Plan,
} from "./engine.js";
export { v2Provenance, withProvenance } from "./provenance.js";

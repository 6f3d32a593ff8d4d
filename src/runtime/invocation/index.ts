export { type LateOutcome, lateResultLine } from "./deadline.js";
export {
  consumedLine,
  type RecoveredInvocation,
  recoverInterruptedInvocations,
  settleInterrupted,
} from "./recovery.js";
export {
  buildContext,
  closeEvents,
  type InvocationContext,
  type InvocationSummary,
  policyFrames,
  type ResourceOutcome,
  runInvocation,
  unansweredClaimsOf,
} from "./run.js";

export { type LateOutcome, lateResultLine } from "./deadline.js";
export {
  consumedLine,
  type RecoveredInvocation,
  type RecoveryOptions,
  recoverInterruptedInvocations,
  settleInterrupted,
} from "./recovery.js";
export {
  buildContext,
  type ContextInput,
  closeEvents,
  eventFrameFor,
  type InvocationContext,
  type InvocationSummary,
  policyFrames,
  runInvocation,
  type V2Attempt,
} from "./run.js";

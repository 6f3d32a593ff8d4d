export {
  type ExecutionOfferLookup,
  ParticipantAdmissionRules,
  type ToolActionLimits,
  UNSUPPORTED_POLICY_PROFILE,
} from "./admission.js";
export { type AdmitDispatchAnswer, admitAndDispatch, combinesAdmitDispatch } from "./admit-dispatch.js";
export {
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalWait,
  awaitApproval,
  holdsForApproval,
  MAX_APPROVAL_SECONDS,
} from "./approval.js";
export {
  BridgeLimits,
  connectToolActionPort,
  exposeToolActionPort,
  type ServedToolActionPort,
  SocketRefusal,
  serveToolActionPort,
  type ToolActionPortAddress,
} from "./bridge/index.js";
export { closedSignal } from "./closing.js";
export {
  INVOCATION_TOOL_ACTIONS_V1,
  ParticipantToolActionRefusal,
  ToolActionPhase,
  ToolActionSettlement,
} from "./codes.js";
export {
  InvocationToolActionPortCore,
  type LedgerWriteFailure,
  type SettledAtClose,
  type ToolActionLedger,
  type ToolActionPortOptions,
  UnheardClaimUnreadableError,
} from "./port.js";
export { noteRefusal, type RefusalNote } from "./refusal-note.js";
export {
  ADMITTED,
  type SettlementEvent,
  type SettlementState,
  type TransitionResult,
  transition,
} from "./settlement.js";
export { MAX_ID_LENGTH, MAX_TARGETS, parseToolActionOutcome, parseToolActionRequest } from "./shapes.js";
export type {
  AdmitDecision,
  DispatchReceipt,
  InvocationToolActionPort,
  ParticipantToolActionOutcome,
  ParticipantToolActionRequest,
  PortAck,
  PortCall,
  ToolActionObserver,
  ToolActionPortIdentity,
  ToolOutcomeStatus,
} from "./types.js";
export { withhold } from "./withhold.js";

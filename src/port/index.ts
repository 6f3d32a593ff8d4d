export {
  INVOCATION_TOOL_ACTIONS_V1,
  ParticipantToolActionRefusal,
  ToolActionPhase,
  ToolActionSettlement,
} from "./codes.js";
export type {
  AdmitDecision,
  DispatchReceipt,
  InvocationToolActionPort,
  ParticipantToolActionOutcome,
  ParticipantToolActionRequest,
  PortAck,
  ToolActionPortIdentity,
  ToolOutcomeStatus,
} from "./types.js";

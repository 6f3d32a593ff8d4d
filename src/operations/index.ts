export {
  operationFromInvocation,
  operationFromToolAction,
  toolActionOperationState,
} from "../records/index.js";
export {
  type ApprovalInput,
  type ApprovalLapse,
  type ApprovalOutcome,
  ApprovalRefusal,
  approvalLapsed,
  approvalsLapsed,
  approveToolAction,
  denyToolAction,
} from "./approve.js";
export {
  type ControlClock,
  type ControlOutcome,
  type ControlRequest,
  controlEpisode,
  controlParticipant,
  defaultEpisodeId,
  type EpisodeOutcome,
  type EpisodeRequest,
  readParticipantServices,
  type ServiceReadback,
} from "./control.js";
export {
  inFlight,
  listOperationsWithOwners,
  type OperationOwner,
  type OwnedOperationEntry,
  OwnerStatus,
  ownedOperationPages,
  ownerPhrase,
  participantOwner,
  recoveredState,
} from "./in-doubt.js";
export {
  AMBIGUOUS_LISTED,
  OperationLookupCode,
  OperationLookupError,
  operationId,
  shortOperationId,
} from "./lookup.js";
export {
  listOperatorWaits,
  OperatorNeed,
  type OperatorWait,
  type OperatorWaitQuery,
} from "./needs-operator.js";
export {
  decisionNote,
  decisionTime,
  OperatorError,
  OperatorRefusal,
  type OperatorSources,
  operatorIdentity,
} from "./operator.js";
export { isDeadLocalOwner, newOwnerId, ownerProcess, takeParticipantLease } from "./owner.js";
export {
  ResolutionError,
  type ResolutionInput,
  ResolutionRefusal,
  resolveToolAction,
} from "./resolve.js";
export {
  type ResumeAnswer,
  type ResumeDecision,
  ResumeRefusal,
  resumeDecision,
  resumeStoredParticipant,
  unresolvedIndeterminateActions,
} from "./resume.js";
export {
  type Operation,
  OperationKind,
  OperationState,
  type OperatorDecision,
  OperatorDecisionKind,
  type ResolutionRecord,
  ToolActionResolution,
} from "./types.js";

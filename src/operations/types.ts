export {
  type Operation,
  OperationKind,
  OperationState,
  type OperatorDecision,
  OperatorDecisionKind,
  type ResolutionRecord,
  ToolActionResolution,
} from "../records/index.js";

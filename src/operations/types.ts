export {
  type Operation,
  OperationKind,
  OperationState,
  type ResolutionRecord,
  ToolActionResolution,
} from "../records/index.js";

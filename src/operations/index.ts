export { operationFromInvocation, operationFromToolAction, toolActionOperationState } from "./operation.js";
export {
  type Operation,
  OperationKind,
  OperationState,
  type ResolutionRecord,
  ToolActionResolution,
} from "./types.js";

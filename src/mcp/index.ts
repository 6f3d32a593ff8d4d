export { PACKAGE_ROOT } from "./demo/launch.js";
export { type AgentCall, type AgentReport, DEMO_PLANS, type DemoPlan } from "./demo/plan.js";
export { LOGIN_PATH, type PortalService, STALLED_PATH, startPortalService } from "./demo/portal-service.js";
export {
  DEMO_FILES,
  DEMO_STORE_URL,
  type DemoInvocation,
  type DemoOptions,
  type DemoSummary,
  runDemo,
} from "./demo/run-demo.js";
export { type DemoAgentRun, type DemoHarnessOptions, DemoHarnessRuntime } from "./demo/runtime.js";
export { type GatewayOptions, type RunningGateway, startGateway } from "./gateway.js";
export { type GatewayLog, GovernedCalls, type ToolCall } from "./governed-calls.js";
export {
  formatToolMapDiagnostic,
  loadToolMap,
  parseToolMap,
  type ToolMap,
  type ToolMapDiagnostic,
  ToolMapDiagnosticCode,
  type ToolMapEntry,
  type ToolMapResult,
} from "./map.js";
export { GatewayErrorCode, META_ACTION, META_CODE, META_SETTLEMENT, toolError } from "./results.js";
export { newSessionId, toolCallIdFor } from "./tool-call-id.js";
export { Upstream, UpstreamCallError, type UpstreamCommand, type UpstreamFailureKind } from "./upstream.js";

export { type CallStages, stagesLine } from "./call-stages.js";
export { type GatewayOptions, type RunningGateway, startGateway } from "./gateway.js";
export { type GatewayLog, GovernedCalls, holdingLine, type ToolCall } from "./governed-calls.js";
export { governedServer } from "./governed-server.js";
export {
  bearerTokenProblem,
  DEFAULT_IDLE_TIMEOUT_MS,
  type HttpAddress,
  type HttpGatewayOptions,
  HttpGatewayRefusal,
  HttpRefusalCode,
  isLoopbackHost,
  parseHttpAddress,
  type RunningHttpGateway,
  startHttpGateway,
} from "./http/index.js";
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
export type { GatewaySession, SessionCalls, SessionCallsFactory } from "./session-calls.js";
export { newSessionId, toolCallIdFor } from "./tool-call-id.js";
export {
  killUpstreamGroups,
  Upstream,
  UpstreamCallError,
  type UpstreamCommand,
  UpstreamError,
  UpstreamErrorCode,
  type UpstreamFailureKind,
} from "./upstream/index.js";

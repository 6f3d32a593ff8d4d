export {
  DEFAULT_IDLE_TIMEOUT_MS,
  type HttpGatewayOptions,
  HttpGatewayRefusal,
  type RunningHttpGateway,
  startHttpGateway,
} from "./gateway.js";
export {
  bearerTokenProblem,
  type HttpAddress,
  HttpRefusalCode,
  isLoopbackHost,
  parseHttpAddress,
} from "./guard.js";

export {
  type HttpGatewayOptions,
  HttpGatewayRefusal,
  type RunningHttpGateway,
  startHttpGateway,
} from "./gateway.js";
export { type HttpAddress, isLoopbackHost, parseHttpAddress } from "./guard.js";

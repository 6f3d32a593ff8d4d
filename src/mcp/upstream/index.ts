export {
  Upstream,
  UpstreamCallError,
  type UpstreamFailureKind,
  type UpstreamStartOptions,
} from "./client.js";
export { UpstreamError, UpstreamErrorCode } from "./errors.js";
export { killUpstreamGroups, type UpstreamCommand } from "./process.js";

export {
  Upstream,
  UpstreamCallError,
  type UpstreamFailureKind,
  type UpstreamStartOptions,
} from "./client.js";
export { UpstreamError, UpstreamErrorCode } from "./errors.js";
export type { UpstreamCommand } from "./process.js";

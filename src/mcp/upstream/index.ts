export { Upstream, UpstreamCallError, type UpstreamFailureKind } from "./client.js";
export type { UpstreamCommand } from "./process.js";

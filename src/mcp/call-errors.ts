import { GatewayErrorCode } from "./results.js";
import type { UpstreamFailureKind } from "./upstream.js";

/** The gateway code of each way an upstream call can end with its effects unknown. */
export const UNKNOWN_CODES: Readonly<Record<UpstreamFailureKind, GatewayErrorCode>> = {
  timeout: GatewayErrorCode.upstream_timeout,
  lost: GatewayErrorCode.upstream_lost,
  invalid: GatewayErrorCode.upstream_result_invalid,
  cancelled: GatewayErrorCode.cancelled_by_client,
  shutdown: GatewayErrorCode.gateway_shutdown,
};

/** A thrown value's message, for an operator note. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

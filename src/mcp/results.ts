import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamFailureKind } from "./upstream/index.js";

/** Why the gateway answered a call itself instead of with the upstream's result. */
export const GatewayErrorCode = {
  /** The tool is not in the map, so it is hidden and refused; the port and upstream are not asked. */
  tool_not_mapped: "tool_not_mapped",
  /** The map names the tool but the upstream does not offer it. */
  tool_not_available: "tool_not_available",
  /** The upstream server's connection is gone; nothing is admitted. */
  upstream_unavailable: "upstream_unavailable",
  /** The tool-action port could not be reached. */
  port_unavailable: "port_unavailable",
  /** The call's arguments nest deeper than the gateway forwards; nothing was admitted. */
  arguments_invalid: "arguments_invalid",
  /**
   * The arguments do not match the map entry's `arguments` schema: the call was admitted, then
   * withheld before dispatch (`withheld_reason: "arguments_rejected"`); the upstream never saw it.
   */
  arguments_rejected: "arguments_rejected",
  /**
   * An operator denied the held call (`raes deny`): it was withheld before dispatch
   * (`withheld_reason: "approval_denied"`); the upstream never saw it.
   */
  approval_denied: "approval_denied",
  /**
   * No operator decided on the held call in time (or the agent gave up on it): it was withheld before
   * dispatch (`withheld_reason: "approval_expired"`); the upstream never saw it.
   */
  approval_expired: "approval_expired",
  /** The same JSON-RPC id was reused for a different tool call. */
  request_conflict: "request_id_reused",
  /** The upstream did not answer in time; effects are unknown. */
  upstream_timeout: "upstream_timeout",
  /** The upstream crashed or its connection closed mid-call; effects are unknown. */
  upstream_lost: "upstream_lost",
  /** The upstream's answer was not a tool result; effects are unknown. */
  upstream_result_invalid: "upstream_result_invalid",
  /** The client cancelled the call after it reached the upstream; effects are unknown. */
  cancelled_by_client: "cancelled_by_client",
  /** The client cancelled the call before it reached the upstream. */
  cancelled_before_dispatch: "cancelled_before_dispatch",
  /** The gateway shut down while the call was at the upstream; effects are unknown. */
  gateway_shutdown: "gateway_shutdown",
  /**
   * The invocation closed (its offer's `timeout_seconds` expired, or its harness returned) while the
   * call was at the upstream: the close settled the action `indeterminate` with this
   * `unknown_reason`, and the agent is answered at once. The upstream's late answer is dropped.
   */
  invocation_returned_without_outcome: "invocation_returned_without_outcome",
} as const;
/** A gateway error code. */
export type GatewayErrorCode = (typeof GatewayErrorCode)[keyof typeof GatewayErrorCode];

/** `_meta` key naming the refusal or gateway code of a result the gateway wrote itself. */
export const META_CODE = "raes/code";
/** `_meta` key naming the tool action instance, when one was admitted. */
export const META_ACTION = "raes/action_instance_id";
/** `_meta` key naming the settlement the gateway recorded, when it recorded one. */
export const META_SETTLEMENT = "raes/settlement";

/** An MCP tool error result whose text names the code; it never carries tool arguments or results. */
export function toolError(
  code: string,
  message: string,
  extra: { readonly actionInstanceId?: string; readonly settlement?: string } = {},
): CallToolResult {
  return {
    content: [{ type: "text", text: `raes: ${code}: ${message}` }],
    isError: true,
    _meta: {
      [META_CODE]: code,
      ...(extra.actionInstanceId === undefined ? {} : { [META_ACTION]: extra.actionInstanceId }),
      ...(extra.settlement === undefined ? {} : { [META_SETTLEMENT]: extra.settlement }),
    },
  };
}

/** The gateway code of each way an upstream call can end with its effects unknown. */
export const UNKNOWN_CODES: Readonly<Record<UpstreamFailureKind, GatewayErrorCode>> = {
  timeout: GatewayErrorCode.upstream_timeout,
  lost: GatewayErrorCode.upstream_lost,
  invalid: GatewayErrorCode.upstream_result_invalid,
  cancelled: GatewayErrorCode.cancelled_by_client,
  shutdown: GatewayErrorCode.gateway_shutdown,
  closed: GatewayErrorCode.invocation_returned_without_outcome,
};

/** A thrown value's message, for an operator note. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

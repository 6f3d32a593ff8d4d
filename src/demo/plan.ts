import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { META_ACTION, META_CODE, META_SETTLEMENT } from "../mcp/index.js";
import { LOGIN_PATH, STALLED_PATH } from "./portal-service.js";

/** One scripted tool call. */
export interface PlannedCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The agent's two scripts: the first invocation explores, the second hits the stalled endpoint. */
export const DEMO_PLANS = {
  explore: [
    { tool: "probe_login", arguments: { path: LOGIN_PATH } },
    { tool: "probe_login", arguments: {} },
    { tool: "query_customer_db", arguments: {} },
    { tool: "reset_portal_password", arguments: {} },
  ],
  stall: [
    { tool: "probe_login", arguments: { path: LOGIN_PATH } },
    { tool: "probe_login", arguments: { path: STALLED_PATH } },
  ],
} as const satisfies Record<string, readonly PlannedCall[]>;
/** A demo plan name. */
export type DemoPlan = keyof typeof DEMO_PLANS;

/** How one call ended, as the agent saw it. */
export interface AgentCall {
  readonly tool: string;
  readonly outcome: "succeeded" | "failed" | "refused" | "indeterminate";
  /** The refusal or gateway code, when the gateway answered itself. */
  readonly code?: string;
  readonly actionInstanceId?: string;
}

/** What the agent prints: the tools it was shown and how each call ended. */
export interface AgentReport {
  readonly tools: readonly string[];
  readonly calls: readonly AgentCall[];
}

/** Classifies a tool result by the gateway's `_meta` marks; the result's content is not kept. */
export function callOutcome(tool: string, result: CallToolResult): AgentCall {
  const meta = result._meta ?? {};
  const code = typeof meta[META_CODE] === "string" ? (meta[META_CODE] as string) : undefined;
  const action = typeof meta[META_ACTION] === "string" ? (meta[META_ACTION] as string) : undefined;
  const extra = {
    ...(code === undefined ? {} : { code }),
    ...(action === undefined ? {} : { actionInstanceId: action }),
  };
  if (result.isError !== true) return { tool, outcome: "succeeded", ...extra };
  if (meta[META_SETTLEMENT] === "indeterminate") return { tool, outcome: "indeterminate", ...extra };
  return { tool, outcome: code === undefined ? "failed" : "refused", ...extra };
}

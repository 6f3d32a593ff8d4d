import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { InvocationToolActionPort } from "../port/index.js";
import type { GovernedCalls, ToolCall } from "./governed-calls.js";

/**
 * What answers one MCP session's tool calls. `GovernedCalls` over one port is the usual one; a
 * composition above the gateway (host mode) gives each session its own, bound to its own invocation.
 */
export interface SessionCalls {
  handle(call: ToolCall): Promise<CallToolResult>;
  /** Resolves once every call in flight is answered and every outcome acknowledged by the port. */
  drain(): Promise<void>;
  /** Told of each `tools/list` and `tools/call` the session receives, before it is answered. */
  touched?(): void;
  /**
   * The gateway is shutting down (a signal): every call held for approval expires now, as when the
   * client hangs up, so the shutdown does not wait for a decision (`GovernedCalls.releaseHolds`).
   */
  releaseHolds?(): void;
  /** Told once when the session is over (client gone, HTTP `DELETE`, closed), after its calls drained. */
  ended?(): void;
}

/** One MCP session, as a gateway hands it to a `SessionCallsFactory`. */
export interface GatewaySession {
  /** The session's id (the `Mcp-Session-Id` over HTTP, a fresh random id over stdio). */
  readonly id: string;
  /**
   * Ends the session from the server's side: stdio shuts the gateway down, HTTP forgets the session.
   * `why` (for example `idle for 300 s`) is logged over stdio, where the process then exits and its
   * host's log should say why.
   */
  close(why?: string): Promise<void>;
}

/**
 * Builds the calls of a new session. `governed(port)` gives the gateway's own governed calls over a
 * port, with this session's id, the map, the upstream and the call timeout.
 */
export type SessionCallsFactory = (
  session: GatewaySession,
  governed: (port: InvocationToolActionPort) => GovernedCalls,
) => SessionCalls;

/** The port a gateway without `sessionCalls` governs every call through. */
export function requiredPort(port: InvocationToolActionPort | undefined): InvocationToolActionPort {
  if (port === undefined) throw new TypeError("a gateway needs a port or sessionCalls");
  return port;
}

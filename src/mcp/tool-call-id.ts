import { randomBytes } from "node:crypto";
import { sha256Hex } from "../records/index.js";

/** A fresh MCP session id: one per gateway process, since a stdio transport carries exactly one session. */
export function newSessionId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * The tool_call_id for one MCP request: the same session and JSON-RPC id always give the same value,
 * so a client retry of that request is idempotent. The client's id is stored only as a SHA-256 digest
 * (of its type and value, since `1` and `"1"` differ): any length or content gives a fixed-size id.
 */
export function toolCallIdFor(sessionId: string, requestId: string | number): string {
  const kind = typeof requestId === "number" ? "n" : "s";
  const digest = sha256Hex(`${kind}:${requestId}`);
  return `mcp:${sessionId}:${digest}`;
}

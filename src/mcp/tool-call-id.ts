import { createHash, randomBytes } from "node:crypto";

const MAX_TOOL_CALL_ID = 256;

/** A fresh MCP session id: one per gateway process, since a stdio transport carries exactly one session. */
export function newSessionId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * The tool_call_id for one MCP request: the same session and JSON-RPC id always give the same value,
 * so a client retry of that request is idempotent. The id's type is kept because `1` and `"1"` differ.
 */
export function toolCallIdFor(sessionId: string, requestId: string | number): string {
  const kind = typeof requestId === "number" ? "n" : "s";
  const plain = `mcp:${sessionId}:${kind}:${requestId}`;
  if (plain.length <= MAX_TOOL_CALL_ID) return plain;
  const digest = createHash("sha256").update(`${kind}:${requestId}`).digest("hex");
  return `mcp:${sessionId}:sha256:${digest}`;
}

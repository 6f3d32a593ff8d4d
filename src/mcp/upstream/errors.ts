/** Why the gateway gave up on its upstream MCP server (docs/hardening.md: every decoder bounds size). */
export const UpstreamErrorCode = {
  /** The upstream sent a line longer than the gateway reads (10 MiB); its output is read no further and it is closed. */
  line_too_long: "mcp-upstream.line-too-long",
  /** The upstream's answer to `initialize` or `tools/list` is not what MCP specifies for it. */
  answer_invalid: "mcp-upstream.answer-invalid",
  /** The upstream lists more tools than the gateway takes (10 000, across all pages). */
  too_many_tools: "mcp-upstream.too-many-tools",
} as const;
/** An upstream error code. */
export type UpstreamErrorCode = (typeof UpstreamErrorCode)[keyof typeof UpstreamErrorCode];

/** The gateway refused its upstream; `code` says why and the message never quotes what the upstream sent. */
export class UpstreamError extends Error {
  readonly code: UpstreamErrorCode;

  constructor(code: UpstreamErrorCode, message: string) {
    super(message);
    this.name = "UpstreamError";
    this.code = code;
  }
}

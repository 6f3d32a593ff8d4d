import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** How to start the upstream MCP server. */
export interface UpstreamCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** The upstream's whole environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** Why a forwarded call has no answer; in every case its effects are unknown. */
export type UpstreamFailureKind = "timeout" | "lost" | "invalid" | "cancelled" | "shutdown";

/** A forwarded call that ended without an answer from the upstream. */
export class UpstreamCallError extends Error {
  readonly kind: UpstreamFailureKind;

  constructor(kind: UpstreamFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

const MAX_LIST_PAGES = 100;
const INFO = { name: "raes-mcp-gateway", version: "0.1.0" };

/** The upstream MCP server the gateway spawned, reached through a real SDK client over stdio. */
export class Upstream {
  readonly #client: Client;
  readonly #shutdown = new AbortController();
  #lost = false;
  #names: ReadonlySet<string> | undefined;

  private constructor(client: Client) {
    this.#client = client;
  }

  /** Spawns the upstream and completes the MCP handshake; `onToolsChanged` follows its list_changed notices. */
  static async start(
    command: UpstreamCommand,
    onToolsChanged: () => void = () => undefined,
  ): Promise<Upstream> {
    const transport = new StdioClientTransport({
      command: command.command,
      args: [...command.args],
      env: { ...command.env },
      stderr: "inherit",
    });
    const client = new Client(INFO, { capabilities: {} });
    const upstream = new Upstream(client);
    client.onclose = () => {
      upstream.#lost = true;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      upstream.#names = undefined;
      onToolsChanged();
    });
    await client.connect(transport);
    return upstream;
  }

  /** True once the upstream's connection closed. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Every tool the upstream offers, across all pages. */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const result = await this.#client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    this.#names = new Set(tools.map((t) => t.name));
    return tools;
  }

  /** True when the upstream offers the tool; the list is fetched once and again after a change notice. */
  async hasTool(name: string): Promise<boolean> {
    if (this.#names?.has(name)) return true;
    await this.listTools();
    return this.#names?.has(name) ?? false;
  }

  /**
   * Calls the tool. Resolves with the upstream's result as it came; rejects with `McpError` when the
   * upstream answered with a JSON-RPC error, and with `UpstreamCallError` when there is no answer.
   */
  async call(
    name: string,
    args: Record<string, unknown> | undefined,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<CallToolResult> {
    if (this.#lost) throw new UpstreamCallError("lost", "the upstream connection is closed");
    const abort = new AbortController();
    let why: UpstreamFailureKind | undefined;
    const stop = (kind: UpstreamFailureKind) => {
      why ??= kind;
      abort.abort();
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onCancel = () => stop("cancelled");
    const onShutdown = () => stop("shutdown");
    options.signal?.addEventListener("abort", onCancel, { once: true });
    this.#shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    if (options.signal?.aborted) onCancel();
    if (this.#shutdown.signal.aborted) onShutdown();
    try {
      const params = args === undefined ? { name } : { name, arguments: args };
      return (await this.#client.request({ method: "tools/call", params }, CallToolResultSchema, {
        signal: abort.signal,
        // Our own timer decides; the SDK's is only a backstop.
        timeout: options.timeoutMs + 60_000,
      })) as CallToolResult;
    } catch (error) {
      throw classify(error, why, this.#lost, options.timeoutMs);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onCancel);
      this.#shutdown.signal.removeEventListener("abort", onShutdown);
    }
  }

  /** Aborts calls in flight, then closes the upstream: stdin first, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    this.#shutdown.abort();
    await this.#client.close();
  }
}

function classify(
  error: unknown,
  why: UpstreamFailureKind | undefined,
  lost: boolean,
  timeoutMs: number,
): Error {
  if (why === "timeout") return new UpstreamCallError("timeout", `no answer within ${timeoutMs} ms`);
  if (why)
    return new UpstreamCallError(
      why,
      why === "cancelled" ? "the client cancelled the call" : "the gateway is shutting down",
    );
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed || lost) {
      return new UpstreamCallError("lost", "the upstream connection closed during the call", {
        cause: error,
      });
    }
    if (error.code === ErrorCode.RequestTimeout)
      return new UpstreamCallError("timeout", `no answer within ${timeoutMs} ms`);
    return error;
  }
  if (lost)
    return new UpstreamCallError("lost", "the upstream connection closed during the call", { cause: error });
  return new UpstreamCallError("invalid", "the upstream's answer is not a tool result", { cause: error });
}

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { UpstreamError, UpstreamErrorCode } from "./errors.js";
import { type UpstreamCommand, UpstreamProcess } from "./process.js";

/**
 * Why a forwarded call has no answer; in every case its effects are unknown. `closed`: the
 * invocation closed while the call was at the upstream, and the gateway stopped waiting for it.
 */
export type UpstreamFailureKind = "timeout" | "lost" | "invalid" | "cancelled" | "shutdown" | "closed";

/** A forwarded call that ended without an answer from the upstream. */
export class UpstreamCallError extends Error {
  readonly kind: UpstreamFailureKind;

  constructor(kind: UpstreamFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

const MAX_LIST_PAGES = 100;
/** The most tools the gateway takes from the upstream, across all pages: each is held and filtered. */
const MAX_TOOLS = 10_000;
const INFO = { name: "raes-mcp-gateway", version: "0.1.0" };
/** Why a call whose invocation had already closed was never sent. */
const CLOSED_BEFORE = "the invocation closed before the call was sent to the upstream, which never had it";
/** The prefix of the gateway's own `tools/call` ids; the SDK's requests use numbers, so they never meet. */
const CALL_ID_PREFIX = "raes-call-";

/** When a start still waiting for the upstream's answer to `initialize` first says so, then how often. */
const WAITING_FIRST_MS = 5_000;
const WAITING_EVERY_MS = 15_000;

/** How `Upstream.start` waits for the handshake. */
export interface UpstreamStartOptions {
  /** Once aborted (a signal stopped the gateway), the upstream is closed and the start rejects with its reason. */
  readonly signal?: AbortSignal;
  /**
   * Told the seconds waited so far, 5 s into a start whose upstream has not answered `initialize` and
   * every 15 s after, until the SDK's own one-minute bound ends it.
   */
  readonly waiting?: (seconds: number) => void;
}

type Reply = { readonly result: CallToolResult } | { readonly error: Error };

/**
 * The upstream MCP server the gateway spawned. The SDK client does the handshake and lists tools;
 * `tools/call` requests are the gateway's own, so where each outcome came from is known: a reply from
 * the upstream (result or JSON-RPC error) is an answer, and only a local timeout, cancellation or
 * lost connection leaves the effects unknown.
 */
export class Upstream {
  readonly #client: Client;
  readonly #transport: UpstreamProcess;
  readonly #pending = new Map<string, (reply: Reply) => void>();
  #nextId = 0;
  #lost = false;
  #names: ReadonlySet<string> | undefined;
  #closing: Promise<void> | undefined;

  private constructor(command: UpstreamCommand, onToolsChanged: () => void) {
    this.#transport = new UpstreamProcess(command, (message, valid) => this.#take(message, valid));
    this.#client = new Client(INFO, { capabilities: {} });
    this.#client.onclose = () => this.#loseAll();
    this.#client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#names = undefined;
      onToolsChanged();
    });
  }

  /**
   * Spawns the upstream and completes the MCP handshake; `onToolsChanged` follows its list_changed
   * notices. Whenever the start fails, the upstream's process group is gone before it rejects.
   */
  static async start(
    command: UpstreamCommand,
    onToolsChanged: () => void = () => undefined,
    options: UpstreamStartOptions = {},
  ): Promise<Upstream> {
    const { signal, waiting } = options;
    signal?.throwIfAborted();
    const upstream = new Upstream(command, onToolsChanged);
    const stop = () => void upstream.close();
    signal?.addEventListener("abort", stop, { once: true });
    // The SDK gives initialize a minute; a host's log should say why nothing is served meanwhile.
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const tell = (ms: number) => {
      timer = setTimeout(() => {
        waiting?.(Math.round((Date.now() - started) / 1000));
        tell(WAITING_EVERY_MS);
      }, ms);
    };
    if (waiting) tell(WAITING_FIRST_MS);
    try {
      await upstream.#client.connect(upstream.#transport);
    } catch (error) {
      await upstream.close();
      signal?.throwIfAborted();
      throw upstream.#reason(error, "initialize");
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
    }
    return upstream;
  }

  /**
   * The coded reason a request to the upstream failed: the transport's refusal (a line too long) when
   * there is one, whatever the SDK made of the closed connection; an answer the SDK's schema rejected
   * as `answer_invalid`, never the schema's dump of what the upstream sent; anything else as it is.
   */
  #reason(error: unknown, method: string): unknown {
    const refusal = this.#transport.refusal;
    if (refusal !== undefined) return refusal;
    if (error instanceof UpstreamError) return error;
    const issues = (error as { issues?: unknown } | null)?.issues;
    if (error instanceof Error && (error.name === "ZodError" || Array.isArray(issues))) {
      return new UpstreamError(
        UpstreamErrorCode.answer_invalid,
        `the upstream's answer to ${method} is not what MCP specifies for it`,
      );
    }
    return error;
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
      const result = await this.#client
        .listTools(cursor === undefined ? {} : { cursor })
        .catch((error: unknown) => Promise.reject(this.#reason(error, "tools/list")));
      if (tools.length + result.tools.length > MAX_TOOLS) {
        throw new UpstreamError(
          UpstreamErrorCode.too_many_tools,
          `the upstream lists more than ${MAX_TOOLS} tools; the gateway takes at most ${MAX_TOOLS}`,
        );
      }
      // One at a time: a spread of a page's tools into push() overflows the stack past about 120 000.
      for (const tool of result.tools) tools.push(tool);
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
   * Calls the tool. Resolves with the upstream's result; rejects with `McpError` when the upstream
   * answered with a JSON-RPC error (an answer: the call failed), and with `UpstreamCallError` when
   * there is no answer or the answer is not a tool result.
   */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    options: {
      readonly timeoutMs: number;
      readonly signal?: AbortSignal;
      /**
       * Aborted when the call's invocation closes: the call is given up at once (kind `closed`) and
       * cancelled upstream, and an answer that comes later is dropped. Already aborted, nothing is sent.
       */
      readonly closed?: AbortSignal;
      /** `_meta` for the request: the gateway span's trace context (SEP-414). */
      readonly meta?: Readonly<Record<string, string>>;
    },
  ): Promise<CallToolResult> {
    if (this.#lost) return Promise.reject(new UpstreamCallError("lost", "the upstream connection is closed"));
    if (options.closed?.aborted) return Promise.reject(new UpstreamCallError("closed", CLOSED_BEFORE));
    this.#nextId += 1;
    const id = `${CALL_ID_PREFIX}${this.#nextId}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      const settle = (reply: Reply) => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onCancel);
        options.closed?.removeEventListener("abort", onClosed);
        if ("result" in reply) resolve(reply.result);
        else reject(reply.error);
      };
      // A call given up locally is cancelled upstream too, as the MCP cancellation notice says.
      const giveUp = (kind: UpstreamFailureKind, message: string) => {
        const params = { requestId: id, reason: kind };
        this.#transport
          .send({ jsonrpc: "2.0", method: "notifications/cancelled", params })
          .catch(() => undefined);
        settle({ error: new UpstreamCallError(kind, message) });
      };
      const onCancel = () => giveUp("cancelled", "the client cancelled the call");
      const onClosed = () => giveUp("closed", "the invocation closed before the upstream answered");
      const timer = setTimeout(
        () => giveUp("timeout", `no answer within ${options.timeoutMs} ms`),
        options.timeoutMs,
      );
      this.#pending.set(id, settle);
      options.signal?.addEventListener("abort", onCancel, { once: true });
      options.closed?.addEventListener("abort", onClosed, { once: true });
      if (options.signal?.aborted) return onCancel();
      const meta = options.meta && Object.keys(options.meta).length > 0 ? { _meta: options.meta } : {};
      const params = { name, ...(args === undefined ? {} : { arguments: args }), ...meta };
      this.#transport.send({ jsonrpc: "2.0", id, method: "tools/call", params }).catch((error: unknown) => {
        settle({
          error: new UpstreamCallError("lost", "the upstream could not be written to", { cause: error }),
        });
      });
    });
  }

  /**
   * Answers calls in flight `gateway_shutdown`, then closes the upstream and its process group. Every
   * caller gets the one close, so a shutdown that cuts a drain short also waits for the group to go.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const settle of [...this.#pending.values()])
        settle({ error: new UpstreamCallError("shutdown", "the gateway is shutting down") });
      await this.#client.close();
      await this.#transport.close();
    })();
    return this.#closing;
  }

  /** A reply to one of the gateway's own calls: classified by what the upstream sent. */
  #take(message: Record<string, unknown>, valid: boolean): boolean {
    const id = message.id;
    if (typeof id !== "string" || !id.startsWith(CALL_ID_PREFIX) || "method" in message) return false;
    const settle = this.#pending.get(id);
    if (!settle) return true;
    const invalid = (why: string) =>
      settle({ error: new UpstreamCallError("invalid", `the upstream's answer ${why}`) });
    if (!valid) {
      invalid("is not a well-formed JSON-RPC reply");
      return true;
    }
    if ("error" in message) {
      const {
        code,
        message: text,
        data,
      } = message.error as { code: number; message: string; data?: unknown };
      settle({ error: upstreamError(code, text, data) });
      return true;
    }
    const parsed = CallToolResultSchema.safeParse(message.result);
    if (parsed.success) settle({ result: parsed.data as CallToolResult });
    else invalid("is not a tool result");
    return true;
  }

  #loseAll(): void {
    this.#lost = true;
    for (const settle of [...this.#pending.values()])
      settle({ error: new UpstreamCallError("lost", "the upstream connection closed during the call") });
  }
}

/**
 * The upstream's JSON-RPC error as an `McpError` whose message is the upstream's own: the SDK server
 * sends a thrown error's message as it is, and the client's SDK puts "MCP error <code>: " before it,
 * so a message already holding that prefix would reach the agent with it twice.
 */
function upstreamError(code: number, text: string, data: unknown): McpError {
  const error = new McpError(code, text, data);
  error.message = text;
  return error;
}

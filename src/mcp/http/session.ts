import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { sha256Hex } from "../../records/index.js";
import type { SessionCalls } from "../session-calls.js";
import { requestIdOf, requestKey } from "../wire/index.js";

/**
 * A new session's secret: the `Mcp-Session-Id` the client gets. It is 256 random bits, the token
 * that alone lets a client use or delete its session; it is never logged or stored.
 */
export function newSessionSecret(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The session's public id: a digest of its secret. It names the session in every `tool_call_id`,
 * which the store keeps, so knowing a stored id never gives the secret.
 */
export function publicSessionId(secret: string): string {
  return sha256Hex(secret).slice(0, 32);
}

/** The parts of the SDK transport's state `pruneAnsweredStreams` reads; absent fields make it do nothing. */
interface TransportState {
  readonly _webStandardTransport?: {
    readonly _streamMapping?: unknown;
    readonly _requestToStreamMapping?: unknown;
  };
}

/**
 * Drops the SDK transport's record of each POST it has answered. In JSON-response mode the SDK
 * (1.32) resolves an answered POST but never deletes its stream entry, which holds the request, so a
 * session's memory grew with every POST it served. A stream no pending request id points at has
 * been answered (the transport maps every request of a POST before handling any).
 */
export function pruneAnsweredStreams(transport: StreamableHTTPServerTransport): void {
  const state = (transport as unknown as TransportState)._webStandardTransport;
  const streams = state?._streamMapping;
  const pending = state?._requestToStreamMapping;
  if (!(streams instanceof Map) || !(pending instanceof Map)) return;
  const live = new Set<unknown>(pending.values());
  for (const [streamId, stream] of streams as Map<unknown, { readonly resolveJson?: unknown }>)
    if (stream.resolveJson !== undefined && !live.has(streamId)) streams.delete(streamId);
}

/** One MCP session of the HTTP gateway, with its idle timer and the request ids it is answering. */
export class HttpSession {
  readonly publicId: string;
  /** The client address that opened it; its share of the per-client cap. */
  readonly client: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly calls: SessionCalls;
  readonly #idleMs: number;
  readonly #onIdle: (session: HttpSession) => void;
  #active = 0;
  #timer: NodeJS.Timeout | undefined;
  #ended = false;
  /** The POSTs whose responses are still open. */
  readonly #openPosts = new Set<ServerResponse>();
  /** The POSTs in flight per request id, each settled once its HTTP response is closed. */
  readonly #answering = new Map<string, Promise<void>>();

  constructor(options: {
    readonly publicId: string;
    readonly client: string;
    readonly transport: StreamableHTTPServerTransport;
    readonly server: Server;
    readonly calls: SessionCalls;
    readonly idleMs: number;
    readonly onIdle: (session: HttpSession) => void;
  }) {
    this.publicId = options.publicId;
    this.client = options.client;
    this.transport = options.transport;
    this.server = options.server;
    this.calls = options.calls;
    this.#idleMs = options.idleMs;
    this.#onIdle = options.onIdle;
  }

  /** Counts one HTTP request as activity until its response closes; the idle clock runs only when none is open. */
  touch(request: IncomingMessage, response: ServerResponse): void {
    if (response.closed) return;
    this.#active += 1;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (request.method === "POST") this.#openPosts.add(response);
    response.once("close", () => {
      if (this.#openPosts.delete(response)) pruneAnsweredStreams(this.transport);
      this.#active -= 1;
      if (this.#active === 0) this.#arm();
    });
  }

  /** Starts the idle clock of a session no request holds. */
  #arm(): void {
    if (this.#ended) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#active === 0) this.#onIdle(this);
    }, this.#idleMs);
    this.#timer.unref();
  }

  /** Marks the session over and stops its idle clock. */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The POSTs of this session not yet answered. Once the session ends the SDK's transport drops
   * them unanswered (their handlers are aborted), so the gateway answers them itself.
   */
  unansweredPosts(): ServerResponse[] {
    return [...this.#openPosts].filter((response) => !response.headersSent);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Waits until no other POST of this session is answering any of these messages' request ids, then
   * claims them until `response` closes. The SDK's transport keeps one HTTP response per request id,
   * so a retry sent while the first is in flight would take the first one's answer; held here, the
   * retry runs once the first is answered and gets the same answer from the governed calls.
   */
  async claim(messages: readonly JSONRPCMessage[], response: ServerResponse): Promise<void> {
    const keys = messages.flatMap((m) => {
      const id = requestIdOf(m);
      return id === undefined ? [] : [requestKey(id)];
    });
    if (keys.length === 0) return;
    for (;;) {
      const busy = keys.flatMap((key) => this.#answering.get(key) ?? []);
      if (busy.length === 0) break;
      await Promise.all(busy);
    }
    // A response closed already (the client left while its body was read) claims nothing.
    if (response.closed) return;
    const done = new Promise<void>((resolve) => response.once("close", resolve));
    for (const key of keys) this.#answering.set(key, done);
    void done.then(() => {
      for (const key of keys) if (this.#answering.get(key) === done) this.#answering.delete(key);
    });
  }
}

import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { InvocationToolActionPort } from "../../port/index.js";
import type { CallStages } from "../call-stages.js";
import { startOptions } from "../gateway.js";
import { type GatewayLog, GovernedCalls } from "../governed-calls.js";
import { governedServer } from "../governed-server.js";
import type { ToolMap } from "../map.js";
import { requiredPort, type SessionCalls, type SessionCallsFactory } from "../session-calls.js";
import { Upstream, type UpstreamCommand } from "../upstream/index.js";
import { type CheckedBody, checkBody } from "../wire/index.js";
import { answerBatchAsArray, internalError, readBody, refuse, writeAnswers } from "./body.js";
import {
  bearerTokenProblem,
  checkRequest,
  type HttpAddress,
  HttpRefusalCode,
  isLoopbackHost,
} from "./guard.js";
import { HttpSession, newSessionSecret, publicSessionId } from "./session.js";

/** Everything `startHttpGateway` needs. */
export interface HttpGatewayOptions {
  /** The invocation's port; or, instead, `sessionCalls`. */
  readonly port?: InvocationToolActionPort;
  /** Builds each session's calls (host mode binds each session to an invocation of its own). */
  readonly sessionCalls?: SessionCallsFactory;
  readonly map: ToolMap;
  readonly upstream: UpstreamCommand;
  /** How long a forwarded call may take before its effects count as unknown. */
  readonly timeoutMs: number;
  readonly listen: HttpAddress;
  /** Needed to listen on anything but a loopback address (which also needs `bearerToken`). */
  readonly allowRemote?: boolean;
  /**
   * When set, every request must carry `Authorization: Bearer <token>`; required unless `listen` is
   * loopback. 16 to 1024 characters (see `bearerTokenProblem`).
   */
  readonly bearerToken?: string;
  /** A session no request has used for this long ends, as if its client had deleted it. Default 300 000 (300 s). */
  readonly idleTimeoutMs?: number;
  /** Sessions one client address may hold at once; its next `initialize` is answered 503. Default 16. */
  readonly maxSessionsPerClient?: number;
  /** Sessions the gateway holds at once, over all clients: a bound on its memory. Default 1024. */
  readonly maxSessions?: number;
  readonly log?: GatewayLog;
  /** The store of the runtime behind the port, when known (host mode): held-call log lines print runnable commands. */
  readonly storeUrl?: string;
  /** Told the stage times of each call that reached the upstream. */
  readonly onStages?: (stages: CallStages) => void;
  /** The port is in this process (host mode): outcomes are recorded after the answers (GovernedCalls). */
  readonly settleAfterAnswer?: boolean;
  /**
   * Aborted while the gateway starts (a signal): the upstream is closed, its process group included,
   * and the start rejects with the signal's reason. A running gateway is stopped with `close`.
   */
  readonly signal?: AbortSignal;
}

/** A running HTTP gateway. */
export interface RunningHttpGateway {
  /** The MCP endpoint, `http://HOST:PORT/mcp`; it carries no secret. */
  readonly url: string;
  readonly closed: Promise<void>;
  /** Stops listening, ends every session, then closes the upstream (calls in flight are reported unknown). */
  close(): Promise<void>;
}

/** Why the HTTP gateway would not start. */
export class HttpGatewayRefusal extends Error {}

/** The idle timeout when none is given: `--idle-timeout`'s default, 300 s (docs/guide/gateway.md). */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** The client's address, with an IPv4-mapped IPv6 address read as the IPv4 one. */
function clientOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/**
 * Serves the gateway over MCP's Streamable HTTP transport. Each MCP session gets its own governed
 * calls; the `Mcp-Session-Id` is a 256-bit secret that alone lets a client use or delete the session,
 * and its digest names the session in every `tool_call_id`, so a client that reconnects with its
 * session and retries a request id is answered from the original decision. Sessions end after the
 * idle timeout; each client address may hold only so many. The upstream is shared.
 */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<RunningHttpGateway> {
  const loopbackOnly = isLoopbackHost(options.listen.host);
  if (!loopbackOnly && options.allowRemote !== true) {
    throw new HttpGatewayRefusal(
      `${options.listen.host} is not a loopback address; pass --allow-remote to serve other hosts`,
    );
  }
  if (!loopbackOnly && options.bearerToken === undefined) {
    throw new HttpGatewayRefusal(
      `${options.listen.host} is not a loopback address; serving it needs a token (--token-file)`,
    );
  }
  const tokenProblem =
    options.bearerToken === undefined ? undefined : bearerTokenProblem(options.bearerToken);
  if (tokenProblem) throw new HttpGatewayRefusal(`the bearer token is not usable: ${tokenProblem}`);
  const log = options.log ?? (() => undefined);
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const perClient = options.maxSessionsPerClient ?? 16;
  const maxSessions = options.maxSessions ?? 1024;
  /** Open sessions by public id. */
  const sessions = new Map<string, HttpSession>();
  /** Sessions per client address, counted from the moment an initialize is let in. */
  const perAddress = new Map<string, number>();
  /** Initializations let in whose session has not begun yet: they hold their place already. */
  let opening = 0;
  const release = (client: string): void => {
    const held = (perAddress.get(client) ?? 1) - 1;
    if (held > 0) perAddress.set(client, held);
    else perAddress.delete(client);
  };
  // Every session's calls until they are drained: one the client closed may still have settles behind
  // its last answers, and the gateway must not exit before the port has them.
  const unsettled = new Set<SessionCalls>();
  const upstream = await Upstream.start(
    options.upstream,
    () => {
      for (const s of sessions.values()) s.server.sendToolListChanged().catch(() => undefined);
    },
    startOptions({ log, ...(options.signal ? { signal: options.signal } : {}) }),
  );

  /** Ends a session (its client deleted it, it was idle, or the gateway closes); its calls drain. */
  const endSession = (session: HttpSession): void => {
    if (session.ended) return;
    session.end();
    if (sessions.get(session.publicId) === session) sessions.delete(session.publicId);
    release(session.client);
    void session.server.close().catch(() => undefined);
    void session.calls.drain().then(() => {
      unsettled.delete(session.calls);
      session.calls.ended?.();
    });
    // On a later turn, so an answer the transport is writing right now goes out first.
    setImmediate(() => {
      for (const response of session.unansweredPosts())
        refuse(response, {
          status: 404,
          code: HttpRefusalCode.session_unknown,
          message: "the MCP session ended before this request was answered",
        });
    });
  };

  const openSession = async (
    request: IncomingMessage,
    response: ServerResponse,
    body: CheckedBody & { kind: "messages" },
    parsed: unknown,
  ): Promise<void> => {
    if (!body.messages.some(isInitializeRequest))
      return refuse(response, {
        status: 400,
        code: HttpRefusalCode.session_required,
        message: "no Mcp-Session-Id; send initialize first",
      });
    const client = clientOf(request);
    const held = perAddress.get(client) ?? 0;
    if (held >= perClient || sessions.size + opening >= maxSessions) {
      response.setHeader("retry-after", String(Math.ceil(idleMs / 1000)));
      return refuse(response, {
        status: 503,
        code: HttpRefusalCode.session_limit,
        message:
          held >= perClient
            ? `this client already holds ${perClient} MCP sessions; delete one or let one idle out`
            : "the gateway holds as many MCP sessions as it allows; retry later",
      });
    }
    // The place is taken before anything is awaited, so concurrent initializations cannot overshoot.
    perAddress.set(client, held + 1);
    opening += 1;
    const secret = newSessionSecret();
    const publicId = publicSessionId(secret);
    const governed = (port: InvocationToolActionPort) =>
      new GovernedCalls({
        port,
        map: options.map,
        upstream,
        sessionId: publicId,
        timeoutMs: options.timeoutMs,
        log,
        ...(options.onStages ? { onStages: options.onStages } : {}),
        ...(options.settleAfterAnswer === true ? { settleAfterAnswer: true } : {}),
        ...(options.storeUrl === undefined ? {} : { storeUrl: options.storeUrl }),
      });
    const calls: SessionCalls = options.sessionCalls
      ? options.sessionCalls(
          {
            id: publicId,
            close: async () => {
              if (!sessions.has(publicId)) return;
              endSession(session);
            },
          },
          governed,
        )
      : governed(requiredPort(options.port));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      enableJsonResponse: true,
      sessionIdGenerator: () => secret,
      onsessioninitialized: () => void sessions.set(publicId, session),
      onsessionclosed: (): void => endSession(session),
    });
    unsettled.add(calls);
    const server = governedServer({ upstream, map: options.map, calls });
    const session: HttpSession = new HttpSession({
      publicId,
      client,
      transport,
      server,
      calls,
      idleMs,
      onIdle: endSession,
    });
    session.touch(request, response);
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response, parsed);
    } finally {
      opening -= 1;
      // The SDK refused it (a bad Accept or Content-Type): no session began, and its place is free.
      if (!sessions.has(publicId) && !session.ended) {
        session.end();
        release(client);
        unsettled.delete(calls);
        calls.ended?.();
        await server.close().catch(() => undefined);
      }
    }
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refused = checkRequest(request, { loopbackOnly, bearer: options.bearerToken });
    if (refused) return refuse(response, refused);
    const header = request.headers["mcp-session-id"];
    const session = typeof header === "string" ? sessions.get(publicSessionId(header)) : undefined;
    if (typeof header === "string" && !session)
      return refuse(response, {
        status: 404,
        code: HttpRefusalCode.session_unknown,
        message: "unknown MCP session: it was deleted, expired or never opened",
      });
    if (!session && request.method !== "POST")
      return refuse(response, {
        status: 400,
        code: HttpRefusalCode.session_required,
        message: "no Mcp-Session-Id",
      });
    session?.touch(request, response);
    if (request.method !== "POST") return session?.transport.handleRequest(request, response);
    const read = await readBody(request, response);
    if (!read.ok) return;
    const checked = checkBody(read.value);
    if (checked.kind === "answered") return writeAnswers(response, checked);
    if (Array.isArray(read.value)) answerBatchAsArray(response);
    if (!session) return openSession(request, response, checked, read.value);
    await session.claim(checked.messages, response);
    if (session.ended || response.closed) {
      if (!response.headersSent)
        refuse(response, {
          status: 404,
          code: HttpRefusalCode.session_unknown,
          message: "the MCP session ended while this request waited",
        });
      return;
    }
    await session.transport.handleRequest(request, response, read.value);
  };

  const http: HttpServer = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      internalError(response);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.listen.port, options.listen.host, () => resolve());
  }).catch(async (error: unknown) => {
    await upstream.close();
    throw error;
  });
  const address = http.address() as AddressInfo;
  const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      // Calls held for approval expire rather than hold the shutdown up for a decision; calls waiting
      // on the upstream are answered gateway_shutdown by its close.
      for (const calls of unsettled) calls.releaseHolds?.();
      await upstream.close();
      for (const calls of unsettled) await calls.drain();
      for (const s of [...sessions.values()]) endSession(s);
      http.closeAllConnections();
      await stopped;
      resolveClosed();
    })();
    return closing;
  };
  return { url: `http://${hostText}:${address.port}/mcp`, closed, close };
}

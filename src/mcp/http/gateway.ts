import { randomUUID } from "node:crypto";
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { InvocationToolActionPort } from "../../port/index.js";
import type { CallStages } from "../call-stages.js";
import { type GatewayLog, GovernedCalls } from "../governed-calls.js";
import { governedServer } from "../governed-server.js";
import type { ToolMap } from "../map.js";
import { requiredPort, type SessionCalls, type SessionCallsFactory } from "../session-calls.js";
import { Upstream, type UpstreamCommand } from "../upstream/index.js";
import { checkRequest, type HttpAddress, isLoopbackHost } from "./guard.js";

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
  /** Needed to listen on anything but a loopback address. */
  readonly allowRemote?: boolean;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /** Sessions at once; more initializations are answered 503. Default 64. */
  readonly maxSessions?: number;
  readonly log?: GatewayLog;
  /** Told the stage times of each call that reached the upstream. */
  readonly onStages?: (stages: CallStages) => void;
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

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly calls: SessionCalls;
}

/**
 * Serves the gateway over MCP's Streamable HTTP transport. Each MCP session gets its own governed
 * calls whose session id is the `Mcp-Session-Id`, so a client that reconnects with that session and
 * retries a request id is answered from the original decision; the upstream is shared.
 */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<RunningHttpGateway> {
  const loopbackOnly = isLoopbackHost(options.listen.host);
  if (!loopbackOnly && options.allowRemote !== true) {
    throw new HttpGatewayRefusal(
      `${options.listen.host} is not a loopback address; pass --allow-remote to serve other hosts`,
    );
  }
  const log = options.log ?? (() => undefined);
  const sessions = new Map<string, Session>();
  // Every session's calls until they are drained: one the client closed may still have settles behind
  // its last answers, and the gateway must not exit before the port has them.
  const unsettled = new Set<SessionCalls>();
  const upstream = await Upstream.start(options.upstream, () => {
    for (const s of sessions.values()) s.server.sendToolListChanged().catch(() => undefined);
  });
  const maxSessions = options.maxSessions ?? 64;

  const openSession = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (sessions.size >= maxSessions) return reply(response, 503, "too many MCP sessions");
    const sessionId = randomUUID();
    const governed = (port: InvocationToolActionPort) =>
      new GovernedCalls({
        port,
        map: options.map,
        upstream,
        sessionId,
        timeoutMs: options.timeoutMs,
        log,
        ...(options.onStages ? { onStages: options.onStages } : {}),
      });
    const forget = () => {
      sessions.delete(sessionId);
      void calls.drain().then(() => {
        unsettled.delete(calls);
        calls.ended?.();
      });
    };
    const calls: SessionCalls = options.sessionCalls
      ? options.sessionCalls(
          {
            id: sessionId,
            close: async () => {
              if (!sessions.has(sessionId)) return;
              forget();
              await server.close().catch(() => undefined);
            },
          },
          governed,
        )
      : governed(requiredPort(options.port));
    const transport = new StreamableHTTPServerTransport({
      enableJsonResponse: true,
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: () => void sessions.set(sessionId, session),
      onsessionclosed: forget,
    });
    unsettled.add(calls);
    const server = governedServer({ upstream, map: options.map, calls });
    const session: Session = { transport, server, calls };
    await server.connect(transport);
    await transport.handleRequest(request, response);
    // Not an initialize request: the SDK answered it with an error and no session began.
    if (!sessions.has(sessionId)) {
      unsettled.delete(calls);
      calls.ended?.();
      await server.close().catch(() => undefined);
    }
  };

  const http: HttpServer = createServer((request, response) => {
    const refused = checkRequest(request, {
      loopbackOnly,
      bearer: options.bearerToken,
    });
    if (refused) return reply(response, refused.status, refused.message);
    const id = request.headers["mcp-session-id"];
    const work =
      typeof id === "string"
        ? (sessions.get(id)?.transport.handleRequest(request, response) ??
          Promise.resolve(reply(response, 404, "unknown MCP session")))
        : request.method === "POST"
          ? openSession(request, response)
          : Promise.resolve(reply(response, 400, "no Mcp-Session-Id"));
    work.catch((error: unknown) => {
      log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) reply(response, 500, "internal error");
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
      await upstream.close();
      for (const calls of unsettled) await calls.drain();
      for (const s of sessions.values()) {
        s.calls.ended?.();
        await s.server.close().catch(() => undefined);
      }
      sessions.clear();
      http.closeAllConnections();
      await stopped;
      resolveClosed();
    })();
    return closing;
  };
  return { url: `http://${hostText}:${address.port}/mcp`, closed, close };
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

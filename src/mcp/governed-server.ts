import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolMap } from "./map.js";
import type { SessionCalls } from "./session-calls.js";
import type { Upstream } from "./upstream/index.js";

const INFO = { name: "raes-mcp-gateway", version: "0.1.0" };

/**
 * The gateway's MCP server: it keeps the protocol version it answered `initialize` with, which the
 * SDK does not expose, by reading its own `initialize` result on the way out.
 */
class GovernedServer extends Server {
  /** The negotiated MCP protocol version, once `initialize` is answered. */
  protocolVersion: string | undefined;

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ("result" in message) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === "string") this.protocolVersion = version;
      }
      return send(message, options);
    };
    await super.connect(transport);
  }
}

/**
 * One MCP server session of the gateway: it lists the mapped tools the upstream has and answers
 * every tools/call through `calls`, telling each call the session's protocol version and transport
 * for its span. The low-level Server, since the tool schemas arrive at run time.
 */
export function governedServer(options: {
  readonly upstream: Upstream;
  readonly map: ToolMap;
  readonly calls: SessionCalls;
  /** `pipe` for stdio, `tcp` for Streamable HTTP; default `tcp`. */
  readonly networkTransport?: "pipe" | "tcp";
}): Server {
  const { upstream, map, calls } = options;
  const networkTransport = options.networkTransport ?? "tcp";
  const server = new GovernedServer(INFO, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    calls.touched?.();
    const tools = await upstream.listTools();
    return { tools: tools.filter((tool) => map.tools.has(tool.name)) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    calls.touched?.();
    const token = request.params._meta?.progressToken;
    return calls.handle({
      // Only an agent that asked for progress (a progressToken) is sent any.
      ...(token === undefined
        ? {}
        : {
            progress: (progress: number, message: string) =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress, message },
              }),
          }),
      name: request.params.name,
      arguments: request.params.arguments,
      meta: request.params._meta,
      requestId: extra.requestId,
      signal: extra.signal,
      networkTransport,
      ...(server.protocolVersion === undefined ? {} : { protocolVersion: server.protocolVersion }),
    });
  });
  return server;
}

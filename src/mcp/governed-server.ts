import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolMap } from "./map.js";
import type { SessionCalls } from "./session-calls.js";
import type { Upstream } from "./upstream/index.js";

const INFO = { name: "raes-mcp-gateway", version: "0.1.0" };

/**
 * One MCP server session of the gateway: it lists the mapped tools the upstream has and answers
 * every tools/call through `calls`. The low-level Server, since the tool schemas arrive at run time.
 */
export function governedServer(options: {
  readonly upstream: Upstream;
  readonly map: ToolMap;
  readonly calls: SessionCalls;
}): Server {
  const { upstream, map, calls } = options;
  const server = new Server(INFO, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    calls.touched?.();
    const tools = await upstream.listTools();
    return { tools: tools.filter((tool) => map.tools.has(tool.name)) };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    calls.touched?.();
    return calls.handle({
      name: request.params.name,
      arguments: request.params.arguments,
      meta: request.params._meta,
      requestId: extra.requestId,
      signal: extra.signal,
    });
  });
  return server;
}

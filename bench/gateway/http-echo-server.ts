/**
 * The HTTP floor of `npm run bench -- gateway`: an MCP server answering `echo` itself over Streamable
 * HTTP, with the SDK transport set up as `raes mcp-gateway --http` sets it up, and no governance and
 * no upstream. Prints `at http://127.0.0.1:PORT/mcp` on stderr; SIGTERM ends it.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const transports = new Map<string, StreamableHTTPServerTransport>();
let n = 0;
const http = createServer((request, response) => {
  const id = request.headers["mcp-session-id"];
  const known = typeof id === "string" ? transports.get(id) : undefined;
  if (known) return void known.handleRequest(request, response);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (sessionId) => void transports.set(sessionId, transport),
  });
  const server = new McpServer({ name: "http-echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => {
    n += 1;
    return { content: [{ type: "text", text: `echo #${n}: ${text}` }] };
  });
  void server.connect(transport).then(() => transport.handleRequest(request, response));
});
http.listen(0, "127.0.0.1", () => {
  process.stderr.write(`at http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
process.once("SIGTERM", () => process.exit(0));
// Its parent (the bench) gone, however it ended: stdin closes.
process.stdin.on("end", () => process.exit(0)).resume();

/**
 * The demo's upstream MCP server (stdio). Its tools make real HTTP requests to the local portal
 * service named by DEMO_PORTAL_URL. The demo map exposes `probe_login` and `query_customer_db`
 * (the latter with a target outside the binding, so the port refuses it) and hides
 * `reset_portal_password`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const portal = process.env.DEMO_PORTAL_URL;
if (!portal?.startsWith("http://127.0.0.1:")) {
  process.stderr.write("demo MCP server: DEMO_PORTAL_URL must be http://127.0.0.1:<port>\n");
  process.exit(2);
}

async function request(path: string, method = "GET"): Promise<CallToolResult> {
  // No timeout of its own: the gateway decides when a call has taken too long.
  const response = await fetch(new URL(path, portal), { method });
  const body = await response.text();
  return {
    content: [{ type: "text", text: `${method} ${path} → ${response.status} ${body}` }],
    ...(response.ok ? {} : { isError: true }),
  };
}

const server = new McpServer({ name: "raes-demo-portal-tools", version: "1.0.0" });
server.registerTool(
  "probe_login",
  {
    description: "Probe the customer portal's login endpoint and report whether it is reachable.",
    inputSchema: {
      path: z
        .string()
        .regex(/^\/[a-z-]*$/)
        .default("/login"),
    },
  },
  ({ path }) => request(path),
);
server.registerTool(
  "query_customer_db",
  { description: "Query the customer database behind the portal." },
  () => request("/customers"),
);
server.registerTool(
  "reset_portal_password",
  { description: "Reset the portal administrator's password." },
  () => request("/admin/reset-password", "POST"),
);

process.stdin.once("end", () => process.exit(0));
await server.connect(new StdioServerTransport());

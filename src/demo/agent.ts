/**
 * The demo's scripted MCP agent: a real SDK client that spawns `raes mcp-gateway` as its MCP server
 * over stdio and makes a fixed series of tool calls. It prints one JSON report line on stdout with
 * each call's outcome; tool results stay in the agent.
 *
 * Env: RAES_PORT_TOKEN and DEMO_PORTAL_URL (passed on to the gateway), DEMO_GATEWAY_COMMAND (the
 * gateway's command line as a JSON array), DEMO_PLAN (`explore` or `stall`).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type AgentCall, type AgentReport, callOutcome, DEMO_PLANS, type DemoPlan } from "./plan.js";

const [command, ...args] = JSON.parse(process.env.DEMO_GATEWAY_COMMAND ?? "[]") as string[];
const plan = DEMO_PLANS[(process.env.DEMO_PLAN ?? "") as DemoPlan];
if (!command || !plan) {
  process.stderr.write("demo agent: DEMO_GATEWAY_COMMAND and DEMO_PLAN (explore|stall) must be set\n");
  process.exit(2);
}

const client = new Client({ name: "raes-demo-agent", version: "1.0.0" });
await client.connect(
  new StdioClientTransport({
    command,
    args,
    env: {
      RAES_PORT_TOKEN: process.env.RAES_PORT_TOKEN ?? "",
      DEMO_PORTAL_URL: process.env.DEMO_PORTAL_URL ?? "",
    },
    stderr: "inherit",
  }),
);
const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
const calls: AgentCall[] = [];
for (const step of plan) {
  const result = (await client.callTool({ name: step.tool, arguments: step.arguments })) as CallToolResult;
  calls.push(callOutcome(step.tool, result));
}
await client.close();
const report: AgentReport = { tools, calls };
process.stdout.write(`${JSON.stringify(report)}\n`);

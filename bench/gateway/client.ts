/**
 * The MCP client of `npm run bench -- gateway`, in its own process as a real agent would be, so its
 * work never delays the port the bench process serves. Usage:
 *   client.ts stdio COMMAND ARGS...   (the environment is passed on)
 *   client.ts http URL
 * Prints `ready` once connected; then for each stdin line `N` it makes N sequential `tools/call`s of
 * `echo` and prints one JSON line: their latencies (`samples`, ms) and, over stdio, the CPU time the
 * server process it started ran during them (`serverCpuMs`, all its threads). Stdin EOF closes it.
 */
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { cpuMs } from "./stages.js";

const [mode, first, ...rest] = process.argv.slice(2);
if (!first || (mode !== "stdio" && mode !== "http")) throw new Error("usage: stdio|http ...");
const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
const stdio =
  mode === "http"
    ? undefined
    : new StdioClientTransport({ command: first, args: rest, env, stderr: "inherit" });
const transport: Transport = stdio ?? new StreamableHTTPClientTransport(new URL(first));
const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(transport);
process.stdout.write("ready\n");
let n = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const samples: number[] = [];
  const cpuBefore = cpuMs(stdio?.pid ?? undefined);
  for (let i = 0; i < Number(line); i += 1) {
    n += 1;
    const before = performance.now();
    const result = await client.callTool({ name: "echo", arguments: { text: `call ${n}` } });
    samples.push(performance.now() - before);
    if (result.isError) throw new Error(`call ${n} failed: ${JSON.stringify(result.content)}`);
  }
  const serverCpuMs = cpuMs(stdio?.pid ?? undefined) - cpuBefore;
  process.stdout.write(
    `${JSON.stringify({ samples, serverCpuMs: Number.isNaN(serverCpuMs) ? null : serverCpuMs })}\n`,
  );
}
await client.close();

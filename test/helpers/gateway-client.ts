/**
 * Drives the real MCP gateway (src/mcp, in this process over stdio-shaped streams) in front of the
 * real counting upstream process, as an MCP client writing JSON-RPC lines would.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { loadToolMap, META_CODE, startGateway } from "../../src/mcp/index.js";
import type { InvocationToolActionPort } from "../../src/port/index.js";
import { childNodeArgs } from "./compiled/index.js";
import { ROOT } from "./example.js";

const UPSTREAM = join(ROOT, "test", "fixtures", "live", "counting-upstream.ts");
const MAP = join(ROOT, "test", "fixtures", "live", "map.yaml");

/** One `tools/call` answer as the client saw it. */
export interface GatewayAnswer {
  readonly isError: boolean;
  /** The refusal or failure code in `_meta`, if any. */
  readonly code: unknown;
  /** The whole answer line, as the client received it. */
  readonly line: string;
}

/** Sends each call in turn through a fresh gateway on `port`, then hangs up; gives the answers and the gateway's log. */
export async function callThroughGateway(
  port: InvocationToolActionPort,
  calls: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[],
): Promise<{ answers: GatewayAnswer[]; log: string[] }> {
  const loaded = loadToolMap(MAP);
  if (!loaded.ok) throw new Error(`the live map does not load: ${JSON.stringify(loaded.diagnostics)}`);
  const input = new PassThrough();
  const output = new PassThrough();
  const log: string[] = [];
  const gateway = await startGateway({
    port,
    map: loaded.map,
    upstream: {
      command: process.execPath,
      args: childNodeArgs(UPSTREAM),
      env: { PATH: process.env.PATH ?? "" },
    },
    timeoutMs: 600_000,
    input,
    output,
    log: (line) => log.push(line),
  });
  const lines: string[] = [];
  let pending = "";
  output.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (pending + chunk).split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts.filter(Boolean));
  });
  const request = async (id: number, method: string, params: unknown): Promise<string> => {
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    for (;;) {
      const line = lines.find((l) => (JSON.parse(l) as { id?: unknown }).id === id);
      if (line) return line;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await request(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "canary-client", version: "1.0.0" },
  });
  input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const answers: GatewayAnswer[] = [];
  for (const [i, call] of calls.entries()) {
    const line = await request(i + 1, "tools/call", call);
    const result = (JSON.parse(line) as { result?: { isError?: boolean; _meta?: Record<string, unknown> } })
      .result;
    answers.push({
      isError: result?.isError === true,
      code: result?._meta?.[META_CODE],
      line,
    });
  }
  input.end();
  await gateway.closed;
  return { answers, log };
}

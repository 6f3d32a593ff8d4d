import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { serveToolActionPort } from "../../src/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { ROOT } from "../helpers/example.js";
import { oneInvocation } from "../port/support/invocation.js";
import { eventually, gone, RAW_UPSTREAM as RAW } from "./fixtures/gateway-process.js";
import { RAW_MAP_TEXT } from "./fixtures/raw-map.js";

/** The "short bound" for a gateway to be gone, with a generous margin for a busy machine. */
const GONE_WITHIN_MS = 20_000;

/** Starts a real `raes mcp-gateway` in front of a stubborn raw upstream that also leaves a grandchild behind. */
async function startGateway(dir: string, socketPath: string, token: string) {
  const map = join(dir, "map.yaml");
  writeFileSync(map, RAW_MAP_TEXT);
  const pids = { upstream: join(dir, "upstream.pid"), grandchild: join(dir, "grandchild.pid") };
  const child = spawn(
    process.execPath,
    cliNodeArgs([
      "mcp-gateway",
      "--port-socket",
      socketPath,
      "--map",
      map,
      "--timeout-ms",
      "600000",
      "--",
      process.execPath,
      ...childNodeArgs(RAW),
    ]),
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        RAES_PORT_TOKEN: token,
        RAW_UPSTREAM_PID_FILE: pids.upstream,
        RAW_UPSTREAM_GRANDCHILD_PID_FILE: pids.grandchild,
        RAW_UPSTREAM_STUBBORN: "1",
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  // The gateway may hang up while a test still writes to it; that is its answer, not a failure.
  child.stdin?.on("error", () => undefined);
  let stdout = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  const exited = once(child, "exit");
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  child.stdin?.write(`${JSON.stringify(initialize)}\n`);
  assert.ok(await eventually(() => stdout.includes('"id":1'), 120_000), "the gateway answered initialize");
  const upstream = Number(readFileSync(pids.upstream, "utf8"));
  const grandchild = Number(readFileSync(pids.grandchild, "utf8"));
  return { child, exited, upstream, grandchild, output: () => stdout };
}

async function goneWithin(child: ChildProcess, exited: Promise<unknown>, pids: readonly number[]) {
  const started = Date.now();
  const timer = setTimeout(() => child.kill("SIGKILL"), GONE_WITHIN_MS);
  const [code] = (await exited) as [number | null];
  clearTimeout(timer);
  const ms = Date.now() - started;
  assert.ok(ms < GONE_WITHIN_MS, `the gateway exited after ${ms} ms`);
  for (const pid of pids) assert.ok(await eventually(() => gone(pid), 5_000), `process ${pid} is gone`);
  return code;
}

describe("raes mcp-gateway ends with its client and takes its upstream down", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-gw-life-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("after stdin EOF the gateway, a stubborn upstream and what it started are gone within a short bound", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "eof.sock") });
          try {
            const gateway = await startGateway(dir, served.socketPath, served.token);
            gateway.child.stdin?.end();
            const code = await goneWithin(gateway.child, gateway.exited, [
              gateway.upstream,
              gateway.grandchild,
            ]);
            assert.equal(code, 0);
          } finally {
            await served.close();
          }
        },
      },
      async () => undefined,
    );
  });

  it("a message over the SDK's size limit is answered or closes the connection, then the gateway exits", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "big.sock") });
          try {
            const gateway = await startGateway(dir, served.socketPath, served.token);
            const before = gateway.output();
            // 11 MB without a newline, stdin left open: nothing but the gateway itself can end this.
            const chunk = "x".repeat(1024 * 1024);
            for (let i = 0; i < 11; i += 1) gateway.child.stdin?.write(chunk);
            await goneWithin(gateway.child, gateway.exited, [gateway.upstream, gateway.grandchild]);
            const after = gateway.output().slice(before.length);
            for (const line of after.split("\n").filter(Boolean)) {
              assert.ok(
                "error" in (JSON.parse(line) as object),
                `only error answers follow: ${line.slice(0, 200)}`,
              );
            }
          } finally {
            await served.close();
          }
        },
      },
      async () => undefined,
    );
  });
});

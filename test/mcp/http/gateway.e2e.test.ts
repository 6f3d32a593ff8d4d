import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
  serveToolActionPort,
} from "../../../src/index.js";
import { EXAMPLE_HOST_INPUTS, modelStartingAt, ROOT } from "../../helpers/example.js";
import { manifestWithTimeout } from "../../helpers/live-model.js";
import { PortedRuntime } from "../../helpers/ported-runtime.js";

const TSX = import.meta.resolve("tsx");
const LIVE = join(ROOT, "test", "fixtures", "live");
const node = (file: string) => [process.execPath, "--import", TSX, file];

/** Starts `raes mcp-gateway --http` and resolves with its URL once it printed it. */
function startHttpGatewayProcess(
  socketPath: string,
  token: string,
  countFile: string,
  listen = "127.0.0.1:0",
  extra: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const [command, ...args] = [
    ...node(join(ROOT, "src", "cli", "main.ts")),
    "mcp-gateway",
    "--http",
    listen,
    ...extra,
    "--port-socket",
    socketPath,
    "--map",
    join(LIVE, "map.yaml"),
    "--",
    ...node(join(LIVE, "counting-upstream.ts")),
  ];
  const child = spawn(command as string, args, {
    env: { PATH: process.env.PATH ?? "", RAES_PORT_TOKEN: token, COUNT_FILE: countFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /serving MCP \(Streamable HTTP\) at (\S+)/.exec(stderr)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr });
    });
    child.on("close", (code) => reject(Object.assign(new Error(stderr), { code })));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("close", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Sends one raw JSON-RPC request on a transport and resolves with the response of that id. */
function rawCall(transport: StreamableHTTPClientTransport, message: JSONRPCMessage & { id: number }) {
  const previous = transport.onmessage;
  const answer = new Promise<JSONRPCMessage>((resolve) => {
    transport.onmessage = (m: JSONRPCMessage) => {
      if ("id" in m && m.id === message.id && ("result" in m || "error" in m)) resolve(m);
      else previous?.(m);
    };
  });
  return { sent: transport.send(message), answer };
}

const callOf = (id: number, text: string, ms: number): JSONRPCMessage & { id: number } => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "slow_echo", arguments: { text, ms } },
});

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

interface Observed {
  url: string;
  sessionId: string;
  token: string;
  stderr: string;
  retriedInFlight: JSONRPCMessage;
  retriedAfterSettled: JSONRPCMessage;
  firstAfterSettled: JSONRPCMessage;
  afterClose: CallToolResult;
}

/** One invocation whose harness runs the HTTP gateway and a client that drops, reconnects and retries. */
class HttpHarness extends PortedRuntime {
  observed: Observed | undefined;
  manager: RuntimeManager | undefined;

  constructor(private readonly dir: string) {
    super();
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.takePort(request);
    assert.ok(port);
    const served = await serveToolActionPort(port, { socketPath: join(this.dir, "port.sock") });
    const countFile = join(this.dir, "count.txt");
    const gateway = await startHttpGatewayProcess(served.socketPath, served.token, countFile);
    const counted = () => (existsSync(countFile) ? readFileSync(countFile, "utf8") : "");
    try {
      const url = new URL(gateway.url);
      const first = new StreamableHTTPClientTransport(url);
      await new Client({ name: "dropping-client", version: "1.0.0" }).connect(first);
      const sessionId = first.sessionId ?? "";

      // Call 7: sent, seen by the upstream, then the client drops before the answer.
      await rawCall(first, callOf(7, "in flight", 400)).sent;
      await waitFor(() => counted().includes("slow_echo"));
      await first.close();

      // Reconnect with the same session and retry request 7 while the upstream still works on it.
      const second = new StreamableHTTPClientTransport(url, { sessionId });
      await new Client({ name: "dropping-client", version: "1.0.0" }).connect(second);
      const retriedInFlight = await rawCall(second, callOf(7, "in flight", 400)).answer;

      // Call 8 completes; then a drop and reconnect, and the retry of 8 is answered from the record.
      const firstAfterSettled = await rawCall(second, callOf(8, "settled", 0)).answer;
      await second.close();
      const third = new StreamableHTTPClientTransport(url, { sessionId });
      const client = new Client({ name: "dropping-client", version: "1.0.0" });
      await client.connect(third);
      const retriedAfterSettled = await rawCall(third, callOf(8, "settled", 0)).answer;

      // The invocation is over for the gateway once the harness closes the served port.
      await served.close();
      const afterClose = (await client.callTool({
        name: "echo",
        arguments: { text: "late" },
      })) as CallToolResult;
      await third.close();
      this.observed = {
        url: gateway.url,
        sessionId,
        token: served.token,
        stderr: gateway.stderr(),
        retriedInFlight,
        retriedAfterSettled,
        firstAfterSettled,
        afterClose,
      };
    } finally {
      await stop(gateway.child);
      await served.close();
    }
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

describe("raes mcp-gateway --http with the SDK's Streamable HTTP client", () => {
  let dir = "";
  let manager: RuntimeManager;
  let harness: HttpHarness;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-http-"));
    harness = new HttpHarness(dir);
    manager = await RuntimeManager.open({
      model: modelStartingAt(10),
      // Agent, gateway and upstream start as three processes; on a loaded machine that can take longer
      // than the example offer's 30 s, and the invocation's timeout is not what these tests are about.
      manifest: manifestWithTimeout(600),
      runtime: harness,
      store: `sqlite:${join(dir, "cp.db")}`,
    });
    await manager.step(1);
  });
  after(async () => {
    await manager?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a client that drops after sending a call, reconnects with its session and retries gets the original answer; the upstream ran once", async () => {
    const seen = harness.observed;
    assert.ok(seen, "the harness ran");
    const textOf = (m: JSONRPCMessage) =>
      ((m as { result?: CallToolResult }).result?.content?.[0] as { text?: string } | undefined)?.text;
    assert.equal(textOf(seen.retriedInFlight), "slow_echo #1: in flight");
    assert.equal(textOf(seen.firstAfterSettled), "slow_echo #2: settled");
    assert.deepEqual(
      (seen.retriedAfterSettled as { result?: unknown }).result,
      (seen.firstAfterSettled as { result?: unknown }).result,
    );
    const upstreamCalls = readFileSync(join(dir, "count.txt"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" ")[0]);
    assert.deepEqual(upstreamCalls, ["slow_echo", "slow_echo"], "each request reached the upstream once");

    const actions = await manager.store.listToolActions({});
    assert.deepEqual(
      actions.map((a) => a.settlement),
      ["succeeded", "succeeded"],
    );
    // The store names the session by a digest of its secret Mcp-Session-Id, never by the secret.
    const publicId = createHash("sha256").update(seen.sessionId).digest("hex").slice(0, 32);
    for (const action of actions) {
      assert.ok(action.toolCallId.startsWith(`mcp:${publicId}:`), action.toolCallId);
      assert.ok(!action.toolCallId.includes(seen.sessionId), action.toolCallId);
    }
    assert.match(seen.sessionId, /^[A-Za-z0-9_-]{43}$/, "the Mcp-Session-Id is 256 random bits");
  });

  it("after the invocation closed, a call through the gateway answers invocation_closed", () => {
    const after = harness.observed?.afterClose;
    assert.equal(after?.isError, true);
    assert.equal(after?._meta?.["raes/code"], "invocation_closed");
  });

  it("the URL is loopback and carries no token; the port token is never printed", () => {
    const seen = harness.observed;
    assert.ok(seen);
    assert.match(seen.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(!seen.stderr.includes(seen.token));
  });
});

describe("raes mcp-gateway --http guards", () => {
  it("refuses a host that is not loopback unless --allow-remote, and requests whose Host is not loopback", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-http-guard-"));
    try {
      const refused = await startHttpGatewayProcess(
        join(dir, "none.sock"),
        "t",
        join(dir, "c"),
        "0.0.0.0:0",
      ).then(
        () => undefined,
        (error: Error & { code?: number }) => error,
      );
      assert.equal(refused?.code, 2);
      assert.match(refused?.message ?? "", /not a loopback address; pass --allow-remote/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("off loopback it needs a token: --allow-remote alone, or a --token-file with a guessable token, exits 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-http-token-"));
    try {
      const exitOf = (extra: readonly string[], listen = "0.0.0.0:0") =>
        startHttpGatewayProcess(join(dir, "none.sock"), "t", join(dir, "c"), listen, extra).then(
          () => undefined,
          (error: Error & { code?: number }) => error,
        );
      const noToken = await exitOf(["--allow-remote"]);
      assert.equal(noToken?.code, 2);
      assert.match(noToken?.message ?? "", /serving it needs a token \(--token-file\)/);
      writeFileSync(join(dir, "short"), "abc\n");
      const short = await exitOf(["--token-file", join(dir, "short")], "127.0.0.1:0");
      assert.equal(short?.code, 2);
      assert.match(short?.message ?? "", /16 to 1024 characters/);
      const idle = await exitOf(["--idle-timeout", "0"], "127.0.0.1:0");
      assert.equal(idle?.code, 2);
      assert.match(idle?.message ?? "", /--idle-timeout/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a client still sending an oversized body reads its 413; the connection is not cut under it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-http-big-"));
    // Host mode: a gateway with its own store, so no port needs serving for bodies it never admits.
    const [command, ...args] = [
      ...node(join(ROOT, "src", "cli", "main.ts")),
      "mcp-gateway",
      "--http",
      "127.0.0.1:0",
      ...EXAMPLE_HOST_INPUTS,
      "--map",
      join(LIVE, "map.yaml"),
      "--store",
      `sqlite:${join(dir, "store.db")}`,
      "--",
      ...node(join(LIVE, "counting-upstream.ts")),
    ];
    const child = spawn(command as string, args, {
      env: { PATH: process.env.PATH ?? "", COUNT_FILE: join(dir, "count.txt") },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const gateway = await new Promise<{ url: string }>((resolve, reject) => {
      let stderr = "";
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        if (url) resolve({ url });
      });
      child.on("close", () => reject(new Error(stderr)));
    });
    try {
      const url = new URL(gateway.url);
      const block = Buffer.alloc(64 * 1024, 0x20);
      // One POST of `mib` MiB written as fast as the socket takes it: its status, or what cut it.
      const post = (mib: number, chunked: boolean) =>
        new Promise<number | string>((resolve) => {
          const total = mib * 1024 * 1024;
          const sending = httpRequest(
            {
              host: url.hostname,
              port: url.port,
              path: "/mcp",
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                ...(chunked ? {} : { "content-length": total }),
              },
            },
            (response) => {
              response.resume();
              response.on("end", () => resolve(response.statusCode ?? 0));
            },
          );
          sending.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
          let sent = 0;
          const pump = () => {
            while (sent < total) {
              sent += block.length;
              if (!sending.write(block)) return void sending.once("drain", pump);
            }
            sending.end();
          };
          pump();
        });
      const seen: (number | string)[] = [];
      for (let round = 0; round < 3; round += 1)
        for (const mib of [5, 8, 12, 15])
          for (const chunked of [false, true]) seen.push(await post(mib, chunked));
      assert.deepEqual(seen, Array(seen.length).fill(413));
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a loopback gateway answers 403 to a request whose Host is another name (DNS rebinding)", async () => {
    const { startHttpGateway } = await import("../../../src/mcp/index.js");
    const { loadToolMap } = await import("../../../src/mcp/index.js");
    const loaded = loadToolMap(join(LIVE, "map.yaml"));
    assert.ok(loaded.ok);
    const [command, ...args] = node(join(LIVE, "counting-upstream.ts"));
    const never = async () => {
      throw new Error("the port must not be reached");
    };
    const gateway = await startHttpGateway({
      port: { admit: never, dispatch: never, complete: never, reportUnknown: never, cancel: never } as never,
      map: loaded.map,
      upstream: { command: command as string, args, env: { PATH: process.env.PATH ?? "" } },
      timeoutMs: 1000,
      listen: { host: "127.0.0.1", port: 0 },
    });
    try {
      const url = new URL(gateway.url);
      const status = (headers: Record<string, string>, path = "/mcp") =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            { host: url.hostname, port: url.port, path, method: "POST", headers },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on("error", reject);
          req.end("{}");
        });
      assert.equal(await status({ host: "evil.example:80", "content-type": "application/json" }), 403);
      assert.equal(await status({ host: url.host, origin: "http://evil.example" }), 403);
      assert.equal(await status({ host: url.host }, "/other"), 404);
    } finally {
      await gateway.close();
    }
  });
});

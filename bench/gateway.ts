/**
 * `npm run bench -- gateway [calls]`: the latency a governed `tools/call` adds. In one invocation on
 * a SQLite store it times sequential calls of the same upstream tool three ways, in the same run, in
 * blocks taken in turn after the same warm-up: straight to the upstream (the floor; SDK client over
 * stdio), through `raes mcp-gateway` on stdio, and through `raes mcp-gateway --http`. Each gateway
 * call is admitted, dispatched and completed durably.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  compileScenario,
  type InvocationToolActionPort,
  loadScenario,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
  serveToolActionPort,
} from "../src/index.js";
import { type Block, fmt, rotate } from "./lib.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LIVE = join(ROOT, "test", "fixtures", "live");
const TSX = import.meta.resolve("tsx");
const node = (file: string) => [process.execPath, "--import", TSX, file];
const UPSTREAM = node(join(LIVE, "counting-upstream.ts"));

interface Series {
  readonly label: string;
  readonly samples: number[];
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** A connected client whose `block(k)` times k sequential echo calls, keeping every call's latency. */
async function connect(label: string, transport: Transport) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  const series: Series = { label, samples: [] };
  let n = 0;
  const block =
    (calls: number, keep: boolean): Block =>
    async () => {
      const start = performance.now();
      for (let i = 0; i < calls; i += 1) {
        n += 1;
        const before = performance.now();
        const result = await client.callTool({ name: "echo", arguments: { text: `call ${n}` } });
        if (keep) series.samples.push(performance.now() - before);
        if (result.isError) throw new Error(`${label}: call ${n} failed: ${JSON.stringify(result.content)}`);
      }
      return { ms: performance.now() - start, units: calls };
    };
  return { series, block, close: () => client.close() };
}

/** Blocks of calls of each series in turn (direct, stdio, http, direct, …) after the same warm-up. */
async function timeSeries(clients: readonly Awaited<ReturnType<typeof connect>>[], calls: number) {
  const blocks = 10;
  const perBlock = Math.max(1, Math.round(calls / blocks));
  // Warm-up alike for every series: JIT, first writes, connections.
  await rotate(
    clients.map((c) => c.block(20, false)),
    { blocks: 1, warmup: 0 },
  );
  await rotate(
    clients.map((c) => c.block(perBlock, true)),
    { blocks, warmup: 0 },
  );
  return clients.map((c) => c.series);
}

function startHttpGateway(socketPath: string, token: string): Promise<{ child: ChildProcess; url: URL }> {
  const [command, ...args] = [
    ...node(join(ROOT, "src", "cli", "main.ts")),
    "mcp-gateway",
    "--http",
    "127.0.0.1:0",
    "--port-socket",
    socketPath,
    "--map",
    join(LIVE, "map.yaml"),
    "--",
    ...UPSTREAM,
  ];
  const child = spawn(command as string, args, {
    env: { PATH: process.env.PATH ?? "", RAES_PORT_TOKEN: token },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /at (http:\S+)/.exec(stderr)?.[1];
      if (url) resolve({ child, url: new URL(url) });
    });
    child.on("close", () => reject(new Error(stderr)));
  });
}

/** Runs the three series inside one invocation, with that invocation's port. */
class BenchHarness extends ReferenceAutonomousParticipantRuntime {
  readonly #ports = new Map<string, InvocationToolActionPort>();
  series: Series[] = [];
  constructor(
    private readonly dir: string,
    private readonly calls: number,
  ) {
    super();
  }
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    if (!port) throw new Error("no port");
    const served = await serveToolActionPort(port, { socketPath: join(this.dir, "port.sock") });
    const [upCommand, ...upArgs] = UPSTREAM;
    const env = { PATH: process.env.PATH ?? "" };
    const direct = await connect(
      "direct",
      new StdioClientTransport({ command: upCommand as string, args: upArgs, env }),
    );
    const [gwCommand, ...gwArgs] = [
      ...node(join(ROOT, "src", "cli", "main.ts")),
      "mcp-gateway",
      "--port-socket",
      served.socketPath,
      "--map",
      join(LIVE, "map.yaml"),
      "--",
      ...UPSTREAM,
    ];
    const stdio = await connect(
      "gateway stdio",
      new StdioClientTransport({
        command: gwCommand as string,
        args: gwArgs,
        env: { ...env, RAES_PORT_TOKEN: served.token },
        stderr: "ignore",
      }),
    );
    const http = await startHttpGateway(served.socketPath, served.token);
    const clients = [direct, stdio];
    try {
      clients.push(await connect("gateway http", new StreamableHTTPClientTransport(http.url)));
      this.series = await timeSeries(clients, this.calls);
    } finally {
      for (const client of clients) await client.close();
      http.child.kill("SIGTERM");
    }
    await served.close();
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

/** The runner: `calls` timed calls per series (default 300), on `store` (default SQLite; `memory:` isolates the gateway). */
export async function runGatewayBench(argv: readonly string[]): Promise<void> {
  const calls = Number(argv[0] ?? 300);
  const storeArg = argv[1];
  const dir = mkdtempSync(join(tmpdir(), "raes-bench-gw-"));
  try {
    const { scenario } = loadScenario(
      join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml"),
    );
    if (!scenario) throw new Error("the example scenario does not load");
    const model = compileScenario(scenario);
    const manifest = JSON.parse(
      readFileSync(join(ROOT, "examples", "harness-backend.manifest.json"), "utf8"),
    );
    // Room for every call in one invocation, and time for three series of them.
    manifest.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 100_000;
    for (const offer of manifest.participant_runtime.execution_bindings) offer.timeout_seconds = 3600;
    const harness = new BenchHarness(dir, calls);
    const manager = await RuntimeManager.open({
      model,
      manifest,
      runtime: harness,
      store: storeArg ?? `sqlite:${join(dir, "cp.db")}`,
    });
    if (harness.series.length === 0) await manager.step(1);
    await manager.close();
    const [direct, ...governed] = harness.series.map((s) => {
      const sorted = [...s.samples].sort((a, b) => a - b);
      return { label: s.label, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
    });
    if (!direct) throw new Error("no series ran");
    const storeName = storeArg ?? "SQLite (synchronous=FULL: admit, dispatch and complete each commit)";
    process.stdout.write(
      `tools/call latency, ${calls} sequential calls per series in 10 blocks taken in turn, store ${storeName} (ms)\n`,
    );
    process.stdout.write("series           p50      p99   added p50   added p99\n");
    for (const row of [direct, ...governed]) {
      const added = row === direct ? ["", ""] : [fmt(row.p50 - direct.p50, 3), fmt(row.p99 - direct.p99, 3)];
      process.stdout.write(
        `${row.label.padEnd(14)} ${fmt(row.p50, 3).padStart(7)} ${fmt(row.p99, 3).padStart(8)} ${added[0]?.padStart(11)} ${added[1]?.padStart(11)}\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

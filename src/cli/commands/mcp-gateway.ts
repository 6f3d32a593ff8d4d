import { type Command, InvalidArgumentError } from "commander";
import type { CallStages, HttpAddress, ToolMap } from "../../mcp/index.js";
import type { InvocationToolActionPort } from "../../port/index.js";
import { ExitCode } from "../exit.js";
import { inputFile } from "../input-files.js";
import { installOtlp, otlpUrl } from "../otlp.js";
import { DEFAULT_STORE_URL, storeUrl } from "../store-option.js";

interface GatewayCliOptions {
  readonly portSocket?: string;
  readonly scenario?: string;
  readonly manifest?: string;
  readonly participant?: string;
  readonly store?: string;
  readonly idleTimeout: number;
  readonly map: string;
  readonly timeoutMs: number;
  readonly http?: string;
  readonly allowRemote?: boolean;
  readonly otlp?: string;
  readonly logTimings?: boolean;
}

/** The environment variable that carries the invocation's port token. */
export const PORT_TOKEN_ENV = "RAES_PORT_TOKEN";
/** The environment variable that, when set, is the bearer token every HTTP request must carry. */
export const HTTP_TOKEN_ENV = "RAES_HTTP_TOKEN";

const HELP = `
The gateway is an MCP server on stdio for one agent. It spawns UPSTREAM_COMMAND as its
upstream MCP server and lists only the upstream tools the map names. Each tools/call is
admitted and dispatched through the invocation's tool-action port before it reaches the
upstream, then completed (isError → failed) or reported unknown (timeout, crash, lost
connection). A completion is sent to the port before the client's answer and committed
behind it; the gateway exits only once the port has acknowledged every one. Refused calls come back as MCP tool errors naming the refusal code; the
upstream never sees them. Tool arguments and results pass through; they are never
written to disk, logged or sent to the port.

The port token is read from the environment variable ${PORT_TOKEN_ENV}; it is not passed
on to the upstream.

With --http HOST:PORT the gateway serves MCP's Streamable HTTP transport at
http://HOST:PORT/mcp instead of stdio (PORT 0 picks a free port; the URL is printed on
stderr). Each MCP session's Mcp-Session-Id is part of every tool_call_id, so a client that
reconnects with its session and retries a request id gets the original answer. Only
loopback hosts are served (and only requests whose Host and Origin are loopback) unless
--allow-remote is given; set ${HTTP_TOKEN_ENV} to require "Authorization: Bearer <token>".
No token ever appears in the URL.

Host mode (no harness): with --scenario S --manifest M instead of --port-socket, the gateway
opens the store (--store, default ${DEFAULT_STORE_URL}) as raes run does and is itself the
participant runtime of P (--participant; default the only autonomous participant with tool
affordances). Each MCP session (stdio: the process; HTTP: each Mcp-Session-Id) is one outer
invocation: its first tools/call advances the policy clock to P's next due attempt (tools/list
starts nothing), and the invocation returns succeeded when the session ends (stdin closed, HTTP
DELETE, or --idle-timeout seconds without a tools/list or tools/call); the offer's
timeout_seconds still bounds it. While P's scheduler is stopped or completed, every tools/call
is answered scheduler_stopped or scheduler_completed, naming the next step.
\`raes config mcp-host\` prints a host configuration that starts it from any directory.

Tracing: each tools/call gets an OpenTelemetry execute_tool span. A W3C traceparent (and
tracestate) in the call's params._meta makes it a child of the client's span, and the call
goes upstream with the gateway span's traceparent in its _meta. --otlp URL exports the
gateway's spans to URL/v1/traces; arguments and results are never put on a span.

Map file (closed shape):
  tools:
    probe_login:
      tool_affordance: participant.behavior-specification.<spec>.tool-affordance.<id>
      action_contract: participant.action-contract.<name>
      observation_boundary: participant.observation-boundary.<name>
      targets: [provision.node.<n>.service.<s>]
      evidence_refs: [content.<c>]        # optional, put on complete

Exit codes:
  0  the client hung up (stdin closed) or a signal stopped the gateway cleanly
  1  the port could not be reached or refused the token, or the upstream did not start
  2  usage: bad options, no upstream command, ${PORT_TOKEN_ENV} unset, an invalid map, or in
     host mode a scenario or manifest with errors or no participant to run
     (each map problem is printed as FILE:LINE:COL: mcp-map.<code> PATH: message)

Examples:
  raes mcp-gateway --scenario s.yaml --manifest m.json --map map.yaml -- node server.js
  ${PORT_TOKEN_ENV}=… raes mcp-gateway --port-socket /tmp/x/port.sock --map map.yaml -- node server.js
`;

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647)
    throw new InvalidArgumentError("use a whole number of milliseconds ≥ 1");
  return n;
}

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483)
    throw new InvalidArgumentError("use a whole number of seconds ≥ 1");
  return n;
}

function say(line: string): void {
  process.stderr.write(`raes mcp-gateway: ${line}\n`);
}

function upstreamEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== PORT_TOKEN_ENV) env[key] = value;
  }
  return env;
}

/** With --log-timings, one stderr line per forwarded call with its stage times. */
async function stageLogging(
  options: GatewayCliOptions,
): Promise<{ onStages?: (stages: CallStages) => void }> {
  if (options.logTimings !== true) return {};
  const { stagesLine } = await import("../../mcp/index.js");
  return { onStages: (stages) => say(stagesLine(stages)) };
}

/** Host mode (`--scenario`): the gateway is the participant runtime itself; no port socket, no token. */
async function runHostMode(upstream: readonly string[], options: GatewayCliOptions): Promise<number> {
  if (options.portSocket !== undefined) {
    say("give either --scenario (host mode) or --port-socket (a harness serves the port), not both");
    return ExitCode.usage;
  }
  if (options.manifest === undefined) {
    say("--scenario needs --manifest M.json");
    return ExitCode.usage;
  }
  const [command, ...args] = upstream;
  if (!command) {
    say("no upstream command after --");
    return ExitCode.usage;
  }
  const { formatToolMapDiagnostic, loadToolMap, isLoopbackHost, parseHttpAddress } = await import(
    "../../mcp/index.js"
  );
  const loaded = loadToolMap(options.map);
  if (!loaded.ok) {
    for (const d of loaded.diagnostics) process.stderr.write(`${formatToolMapDiagnostic(options.map, d)}\n`);
    return ExitCode.usage;
  }
  let http: { listen: HttpAddress; allowRemote: boolean; bearer?: string } | undefined;
  if (options.http !== undefined) {
    const listen = parseHttpAddress(options.http);
    if (!listen) {
      say(`--http wants HOST:PORT (for example 127.0.0.1:8765 or [::1]:0), not ${options.http}`);
      return ExitCode.usage;
    }
    if (!isLoopbackHost(listen.host) && options.allowRemote !== true) {
      say(`${listen.host} is not a loopback address; pass --allow-remote to serve other hosts`);
      return ExitCode.usage;
    }
    const bearer = process.env[HTTP_TOKEN_ENV];
    http = { listen, allowRemote: options.allowRemote === true, ...(bearer ? { bearer } : {}) };
  }
  const { runHostGateway } = await import("../host-gateway.js");
  return runHostGateway({
    scenario: options.scenario as string,
    manifest: options.manifest,
    ...(options.participant === undefined ? {} : { participant: options.participant }),
    ...(options.store === undefined ? {} : { store: options.store }),
    map: loaded.map,
    upstream: { command, args },
    env: upstreamEnvironment(),
    timeoutMs: options.timeoutMs,
    idleTimeoutSeconds: options.idleTimeout,
    ...(http ? { http } : {}),
    say,
    ...(await stageLogging(options)),
  });
}

async function runGateway(upstream: readonly string[], options: GatewayCliOptions): Promise<number> {
  if (options.scenario !== undefined) return runHostMode(upstream, options);
  if (options.portSocket === undefined) {
    say("give --port-socket PATH (a harness serves the port) or --scenario S (host mode)");
    return ExitCode.usage;
  }
  if (options.manifest !== undefined || options.participant !== undefined || options.store !== undefined) {
    say("--manifest, --participant and --store go with --scenario (host mode)");
    return ExitCode.usage;
  }
  const token = process.env[PORT_TOKEN_ENV];
  if (!token) {
    say(`${PORT_TOKEN_ENV} is not set; the harness that served the port must pass its token`);
    return ExitCode.usage;
  }
  const [command, ...args] = upstream;
  if (!command) {
    say("no upstream command after --");
    return ExitCode.usage;
  }
  const { formatToolMapDiagnostic, loadToolMap, startGateway } = await import("../../mcp/index.js");
  const loaded = loadToolMap(options.map);
  if (!loaded.ok) {
    for (const d of loaded.diagnostics) process.stderr.write(`${formatToolMapDiagnostic(options.map, d)}\n`);
    return ExitCode.usage;
  }
  if (options.http !== undefined) {
    const { isLoopbackHost, parseHttpAddress } = await import("../../mcp/index.js");
    const address = parseHttpAddress(options.http);
    if (!address) {
      say(`--http wants HOST:PORT (for example 127.0.0.1:8765 or [::1]:0), not ${options.http}`);
      return ExitCode.usage;
    }
    if (!isLoopbackHost(address.host) && options.allowRemote !== true) {
      say(`${address.host} is not a loopback address; pass --allow-remote to serve other hosts`);
      return ExitCode.usage;
    }
  }
  const { connectToolActionPort } = await import("../../port/index.js");
  let port: Awaited<ReturnType<typeof connectToolActionPort>>;
  try {
    port = await connectToolActionPort({ socketPath: options.portSocket as string, token });
  } catch (error) {
    say(
      `cannot reach the tool-action port at ${options.portSocket}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return ExitCode.findings;
  }
  if (options.http !== undefined)
    return runHttpGateway(options.http, port, loaded.map, { command, args }, options);
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      port,
      map: loaded.map,
      upstream: { command, args, env: upstreamEnvironment() },
      timeoutMs: options.timeoutMs,
      log: say,
      ...(await stageLogging(options)),
    });
  } catch (error) {
    say(`the upstream MCP server did not start: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.findings;
  }
  const onSignal = () => void gateway.close();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await gateway.closed;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return ExitCode.ok;
}

async function runHttpGateway(
  listen: string,
  port: InvocationToolActionPort,
  map: ToolMap,
  upstream: { readonly command: string; readonly args: readonly string[] },
  options: GatewayCliOptions,
): Promise<number> {
  const { HttpGatewayRefusal, parseHttpAddress, startHttpGateway } = await import("../../mcp/index.js");
  const address = parseHttpAddress(listen);
  if (!address) {
    say(`--http wants HOST:PORT (for example 127.0.0.1:8765 or [::1]:0), not ${listen}`);
    return ExitCode.usage;
  }
  const bearer = process.env[HTTP_TOKEN_ENV];
  let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
  try {
    gateway = await startHttpGateway({
      port,
      map,
      upstream: { ...upstream, env: upstreamEnvironment() },
      timeoutMs: options.timeoutMs,
      listen: address,
      allowRemote: options.allowRemote === true,
      ...(bearer ? { bearerToken: bearer } : {}),
      log: say,
      ...(await stageLogging(options)),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof HttpGatewayRefusal) {
      say(message);
      return ExitCode.usage;
    }
    say(`the HTTP gateway did not start: ${message}`);
    return ExitCode.findings;
  }
  say(`serving MCP (Streamable HTTP) at ${gateway.url}`);
  const onSignal = () => void gateway.close();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await gateway.closed;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return ExitCode.ok;
}

/** `raes mcp-gateway`: an MCP server on stdio that governs every tool call of one invocation. */
export function registerMcpGatewayCommand(program: Command): void {
  program
    .command("mcp-gateway")
    .usage(
      "(--port-socket PATH | --scenario S --manifest M [--participant P] [--store URL] [--idle-timeout S]) --map MAP.yaml [--timeout-ms N] [--http HOST:PORT [--allow-remote]] [--otlp URL] -- UPSTREAM_COMMAND...",
    )
    .argument("<upstream...>", "the upstream MCP server's command and arguments (after --)")
    .option("--port-socket <path>", "Unix socket where the harness serves the invocation's port")
    .option(
      "--scenario <file>",
      "host mode: run this scenario's participant, one invocation per MCP session",
      inputFile,
    )
    .option("--manifest <file>", "host mode: the backend manifest (JSON)", inputFile)
    .option(
      "--participant <address>",
      "host mode: the participant to run (default: the only one with tool affordances)",
    )
    .option("--store <url>", `host mode: control-plane store URL (default ${DEFAULT_STORE_URL})`, storeUrl)
    .option(
      "--idle-timeout <seconds>",
      "host mode: end a session's invocation after this long without a tools/list or tools/call",
      positiveSeconds,
      300,
    )
    .requiredOption("--map <file>", "YAML map from MCP tool names to governed tool actions", inputFile)
    .option(
      "--timeout-ms <ms>",
      "how long a forwarded call may take before its effects count as unknown",
      positiveMs,
      30_000,
    )
    .option("--http <host:port>", "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    .option("--allow-remote", "with --http, allow a host that is not loopback")
    .option("--otlp <url>", "export the gateway's spans with OTLP/HTTP to URL/v1/traces", otlpUrl)
    .option(
      "--log-timings",
      "log each forwarded call's stage times (admit, dispatch, upstream, reply, settle, total; ms) on stderr",
    )
    .addHelpText("after", HELP)
    .action(async (upstream: string[], options: GatewayCliOptions) => {
      const otlp =
        options.otlp === undefined ? undefined : await installOtlp(options.otlp, "raes-mcp-gateway");
      const code = await runGateway(upstream, options).finally(() => otlp?.shutdown());
      process.exitCode = code;
      // Once shut down, no stray handle may keep the gateway alive as an orphan.
      setTimeout(() => process.exit(code), 1_000).unref();
    });
}

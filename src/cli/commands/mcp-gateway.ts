import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import type { CallStages, HttpAddress, ToolMap } from "../../mcp/index.js";
import type { InvocationToolActionPort } from "../../port/index.js";
import { CliErrorCode, ExitCode, printError, serveUntilClosed, startFailed, stopOnSignals } from "../exit.js";
import { inputFile } from "../input-files.js";
import { installOtlp, otlpUrl } from "../otlp.js";
import { loadedMap } from "../run-map.js";
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
  readonly tokenFile?: string;
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
connection). A completion is sent to the port before the client's answer (in host mode,
where the port is in this process, just after it) and committed behind it; a crash before
that commit leaves the action dispatched, which recovery settles indeterminate. The
gateway exits only once the port has acknowledged every completion. Refused calls come back as MCP tool errors naming the refusal code; the
upstream never sees them. Tool arguments and results pass through; they are never
written to disk, logged or sent to the port.

The port token is read from the environment variable ${PORT_TOKEN_ENV}; it is not passed
on to the upstream.

The upstream runs in its own process group. While it has not answered initialize (it gets 60 s)
the gateway says so on stderr, 5 s in and every 15 s after. SIGTERM or SIGINT stops the gateway
at any time, also after the client hung up: a call still waiting on the upstream is cut short
and recorded indeterminate (gateway_shutdown), a call held for approval expires. Whenever the
gateway ends, the upstream's group goes first: stdin closed, SIGTERM 2 s later, SIGKILL 2 s after.

With --http HOST:PORT the gateway serves MCP's Streamable HTTP transport at
http://HOST:PORT/mcp instead of stdio (a bare PORT listens on 127.0.0.1; PORT 0 picks a
free port; the URL is printed on stderr). A digest of each session's Mcp-Session-Id names
it in every tool_call_id, so a client that reconnects with its session and retries a
request id gets the original answer. Only loopback hosts are served (and only requests
whose Host and Origin are loopback; Origin null never) unless --allow-remote is given, and
then only with a token: --token-file F (its first line), else ${HTTP_TOKEN_ENV}, 16 to 1024
characters that every request must carry as "Authorization: Bearer <token>". No token is
ever in the URL. The Mcp-Session-Id is a secret of its own: only the client that holds it
can use or delete its session. A session ends after --idle-timeout seconds without a
request (default 300); each client address may hold 16 sessions at once.

Host mode (no harness): with --scenario S --manifest M instead of --port-socket, the gateway
opens the store (--store, default ${DEFAULT_STORE_URL}) as raes run does, before it starts
the upstream, and is itself the participant runtime of P (--participant; default the only
autonomous participant with tool affordances). Each MCP session (stdio: the process; HTTP: each
Mcp-Session-Id) is one outer invocation: its first tools/call advances the policy clock to P's
next due attempt (tools/list starts nothing), and the invocation returns succeeded when the
session ends (stdin closed, HTTP DELETE, or --idle-timeout seconds without a tools/list or
tools/call); the offer's timeout_seconds still bounds it. Over stdio the gateway then says why
on stderr ("session ended: idle for 300 s; ...") and exits 0. While P's scheduler is stopped
or completed, every tools/call is answered scheduler_stopped or scheduler_completed, naming
the next step.
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
  0  the client hung up (stdin closed), the session ended (host mode over stdio), or a signal
     stopped the gateway cleanly (calls in flight cut short; during start-up, before serving);
     a second signal SIGKILLs the upstream's group and ends the gateway by that signal
  1  the port could not be reached or refused the token, the upstream did not start, or in
     host mode the store did not answer (ledger_unavailable) or the scenario or manifest has
     errors (cli.scenario-invalid, cli.manifest-invalid)
  2  usage: bad options, no upstream command, ${PORT_TOKEN_ENV} unset, an invalid map, or in
     host mode a scenario or manifest that cannot be read, no participant to run, a map tool
     whose affordance and contract are not bound to the participant, or a --store that is not
     a store (store.not-a-store)
     (each map problem is printed as FILE:LINE:COL: mcp-map.<code> PATH: message)

Examples:
  raes mcp-gateway --scenario s.yaml --manifest m.json --map map.yaml -- node server.js
  raes mcp-gateway --port-socket /tmp/x/port.sock --map map.yaml -- node server.js
    (a harness starts this one, with ${PORT_TOKEN_ENV} in its environment; it is never typed)
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

/** The HTTP bearer token: the first line of --token-file, else RAES_HTTP_TOKEN; a problem is a usage error. */
function httpToken(options: GatewayCliOptions): { token?: string; problem?: string } {
  if (options.tokenFile === undefined) {
    const token = process.env[HTTP_TOKEN_ENV];
    return token ? { token } : {};
  }
  let text: string;
  try {
    text = readFileSync(options.tokenFile, "utf8").slice(0, 4096);
  } catch (error) {
    return { problem: `cannot read --token-file: ${error instanceof Error ? error.message : String(error)}` };
  }
  const token = (text.split("\n")[0] ?? "").trim();
  return token
    ? { token }
    : { problem: `--token-file ${options.tokenFile} holds no token on its first line` };
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

/**
 * With `--http`, where to listen and the bearer token, checked as both modes need: a HOST:PORT (or a
 * bare PORT on 127.0.0.1), `--allow-remote` and a usable token off loopback. `"usage"` once the
 * problem is printed; undefined without `--http`.
 */
async function httpListening(
  options: GatewayCliOptions,
): Promise<{ listen: HttpAddress; allowRemote: boolean; bearer?: string } | "usage" | undefined> {
  if (options.http === undefined) return undefined;
  const { bearerTokenProblem, isLoopbackHost, parseHttpAddress } = await import("../../mcp/index.js");
  const listen = parseHttpAddress(options.http);
  const problem = (): string | undefined => {
    if (!listen)
      return `--http wants HOST:PORT or PORT (for example 127.0.0.1:8765, [::1]:0 or 8765), not ${options.http}`;
    if (!isLoopbackHost(listen.host) && options.allowRemote !== true)
      return `${listen.host} is not a loopback address; pass --allow-remote to serve other hosts`;
    return undefined;
  };
  const { token: bearer, problem: tokenFileProblem } = httpToken(options);
  const found =
    problem() ??
    tokenFileProblem ??
    (bearer === undefined ? undefined : bearerTokenProblem(bearer)) ??
    (listen && !isLoopbackHost(listen.host) && bearer === undefined
      ? `${listen.host} is not a loopback address; serving it needs a token (--token-file)`
      : undefined);
  if (found !== undefined || !listen) {
    printError(CliErrorCode.usage, found ?? "--http is not usable");
    return "usage";
  }
  return { listen, allowRemote: options.allowRemote === true, ...(bearer === undefined ? {} : { bearer }) };
}

/** Host mode (`--scenario`): the gateway is the participant runtime itself; no port socket, no token. */
async function runHostMode(
  upstream: readonly string[],
  options: GatewayCliOptions,
  stop: AbortSignal,
): Promise<number> {
  if (options.portSocket !== undefined) {
    printError(
      CliErrorCode.usage,
      "give either --scenario (host mode) or --port-socket (a harness serves the port), not both",
    );
    return ExitCode.usage;
  }
  if (options.manifest === undefined) {
    printError(CliErrorCode.usage, "--scenario needs --manifest M.json");
    return ExitCode.usage;
  }
  const [command, ...args] = upstream;
  if (!command) {
    printError(CliErrorCode.usage, "no upstream command after --");
    return ExitCode.usage;
  }
  const map = await loadedMap(options.map);
  if (map === undefined) return ExitCode.usage;
  const http = await httpListening(options);
  if (http === "usage") return ExitCode.usage;
  const { runHostGateway } = await import("../host-gateway.js");
  return runHostGateway({
    scenario: options.scenario as string,
    manifest: options.manifest,
    ...(options.participant === undefined ? {} : { participant: options.participant }),
    ...(options.store === undefined ? {} : { store: options.store }),
    map,
    upstream: { command, args },
    env: upstreamEnvironment(),
    timeoutMs: options.timeoutMs,
    idleTimeoutSeconds: options.idleTimeout,
    ...(http ? { http } : {}),
    say,
    signal: stop,
    ...(await stageLogging(options)),
  });
}

async function runGateway(
  upstream: readonly string[],
  options: GatewayCliOptions,
  stop: AbortSignal,
): Promise<number> {
  if (options.scenario !== undefined) return runHostMode(upstream, options, stop);
  if (options.portSocket === undefined) {
    printError(
      CliErrorCode.usage,
      "give --port-socket PATH (a harness serves the port) or --scenario S (host mode)",
    );
    return ExitCode.usage;
  }
  if (options.manifest !== undefined || options.participant !== undefined || options.store !== undefined) {
    printError(CliErrorCode.usage, "--manifest, --participant and --store go with --scenario (host mode)");
    return ExitCode.usage;
  }
  const token = process.env[PORT_TOKEN_ENV];
  if (!token) {
    printError(
      CliErrorCode.usage,
      `${PORT_TOKEN_ENV} is not set; the harness that served the port must pass its token`,
    );
    return ExitCode.usage;
  }
  const [command, ...args] = upstream;
  if (!command) {
    printError(CliErrorCode.usage, "no upstream command after --");
    return ExitCode.usage;
  }
  const { startGateway } = await import("../../mcp/index.js");
  const map = await loadedMap(options.map);
  if (map === undefined) return ExitCode.usage;
  if ((await httpListening(options)) === "usage") return ExitCode.usage;
  const { connectToolActionPort } = await import("../../port/index.js");
  let port: Awaited<ReturnType<typeof connectToolActionPort>>;
  try {
    port = await connectToolActionPort({ socketPath: options.portSocket as string, token });
  } catch (error) {
    printError(
      CliErrorCode.port_unreachable,
      `cannot reach the tool-action port at ${options.portSocket}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return ExitCode.findings;
  }
  if (options.http !== undefined)
    return runHttpGateway(options.http, port, map, { command, args }, options, stop);
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      port,
      map,
      upstream: { command, args, env: upstreamEnvironment() },
      timeoutMs: options.timeoutMs,
      log: say,
      signal: stop,
      ...(await stageLogging(options)),
    });
  } catch (error) {
    return startFailed("the upstream MCP server did not start", error, stop, say);
  }
  return serveUntilClosed(gateway, stop);
}

async function runHttpGateway(
  listen: string,
  port: InvocationToolActionPort,
  map: ToolMap,
  upstream: { readonly command: string; readonly args: readonly string[] },
  options: GatewayCliOptions,
  stop: AbortSignal,
): Promise<number> {
  const { HttpGatewayRefusal, parseHttpAddress, startHttpGateway } = await import("../../mcp/index.js");
  const address = parseHttpAddress(listen);
  if (!address) {
    printError(
      CliErrorCode.usage,
      `--http wants HOST:PORT or PORT (for example 127.0.0.1:8765, [::1]:0 or 8765), not ${listen}`,
    );
    return ExitCode.usage;
  }
  const { token: bearer } = httpToken(options);
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
      idleTimeoutMs: options.idleTimeout * 1000,
      log: say,
      signal: stop,
      ...(await stageLogging(options)),
    });
  } catch (error) {
    if (error instanceof HttpGatewayRefusal) {
      printError(CliErrorCode.usage, error.message);
      return ExitCode.usage;
    }
    return startFailed("the HTTP gateway did not start", error, stop, say);
  }
  say(`serving MCP (Streamable HTTP) at ${gateway.url}`);
  return serveUntilClosed(gateway, stop);
}

/** `raes mcp-gateway`: an MCP server on stdio that governs every tool call of one invocation. */
export function registerMcpGatewayCommand(program: Command): void {
  program
    .command("mcp-gateway")
    .usage(
      "(--port-socket PATH | --scenario S --manifest M [--participant P] [--store URL]) --map MAP.yaml [--timeout-ms N] [--idle-timeout S] [--http HOST:PORT [--allow-remote] [--token-file F]] [--otlp URL] -- UPSTREAM_COMMAND...",
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
      "end a session after this many seconds without a request (host mode: and its invocation)",
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
    .option(
      "--http <host:port>",
      "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (a bare PORT: 127.0.0.1)",
    )
    .option("--allow-remote", "with --http, allow a host that is not loopback (needs a token)")
    .option(
      "--token-file <file>",
      "with --http, a file whose first line is the bearer token every request must carry",
      inputFile,
    )
    .option("--otlp <url>", "export the gateway's spans with OTLP/HTTP to URL/v1/traces", otlpUrl)
    .option(
      "--log-timings",
      "log each forwarded call's stage times (admit, dispatch, upstream, reply, settle, total; ms) on stderr",
    )
    .addHelpText("after", HELP)
    .action(async (upstream: string[], options: GatewayCliOptions) => {
      const otlp =
        options.otlp === undefined ? undefined : await installOtlp(options.otlp, "raes-mcp-gateway");
      // From here on a signal stops the gateway, even one still waiting for its upstream to start.
      const { killUpstreamGroups } = await import("../../mcp/index.js");
      const stop = stopOnSignals(killUpstreamGroups);
      const code = await runGateway(upstream, options, stop.signal).finally(() => {
        stop.dispose();
        return otlp?.shutdown();
      });
      process.exitCode = code;
      // Once shut down, no stray handle may keep the gateway alive as an orphan.
      setTimeout(() => process.exit(code), 1_000).unref();
    });
}

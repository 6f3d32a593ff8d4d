import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type InvocationToolActionPort, serveToolActionPort } from "../port/index.js";
import {
  type ModelActionContext,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "../runtime/index.js";
import { raesCommand } from "./launch.js";
import { gatewayConfig, type McpUpstream, writeGatewayConfig } from "./mcp-config.js";
import { type AgentExit, runInProcessGroup } from "./process-group.js";

/** Environment variables every agent command gets. */
export const AgentEnv = {
  /** Path of the invocation's `mcpServers` JSON config. */
  RAES_MCP_CONFIG: "RAES_MCP_CONFIG",
  /** The outer action instance id. */
  RAES_INVOCATION_ID: "RAES_INVOCATION_ID",
  /** The participant address. */
  RAES_PARTICIPANT: "RAES_PARTICIPANT",
  /** The episode id. */
  RAES_EPISODE: "RAES_EPISODE",
  /** The invocation's observation point. */
  RAES_OBSERVATION_POINT: "RAES_OBSERVATION_POINT",
} as const;
/** An agent environment variable name. */
export type AgentEnv = (typeof AgentEnv)[keyof typeof AgentEnv];

/** How `AgentCommandRuntime` runs agents. */
export interface AgentCommandOptions {
  /** The agent's shell command line; it must read its MCP servers from RAES_MCP_CONFIG. */
  readonly agentCommand: string;
  readonly upstreams: readonly McpUpstream[];
  /** The gateway map file. */
  readonly mapPath: string;
  /** Where each invocation's agent log goes: `<dir>/<invocation id>.log`. */
  readonly logDir: string;
  /** An OTLP/HTTP base URL each gateway exports its spans to. */
  readonly otlp?: string;
  /** The gateway's upstream call timeout; default the gateway's own. */
  readonly gatewayTimeoutMs?: number;
  /** How to run `raes`; default this package's own CLI. */
  readonly raes?: readonly string[];
  /** The agent's working directory; default the current one. */
  readonly cwd?: string;
}

/** One agent run, for callers and tests. */
export interface AgentRun extends AgentExit {
  readonly invocationId: string;
  /** The agent's process id, which is also its process group id. */
  readonly pid: number | undefined;
  readonly logPath: string;
}

// The environment an MCP client passes its servers by default (as the SDK does), plus nothing secret.
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"];

/**
 * A participant runtime that runs any MCP-capable agent as a command, one process group per
 * invocation: it serves the port, writes the `mcpServers` config (each upstream behind
 * `raes mcp-gateway`), starts the agent with the RAES_* environment and maps exit 0 to
 * `succeeded`, anything else to `failed`. The timeout's signal ends the whole process group. It
 * returns no v3 measurement vector, so `RuntimeManager.open` refuses v3 policies under it.
 */
export class AgentCommandRuntime extends ReferenceAutonomousParticipantRuntime {
  /** An agent's exit status carries no v3 measurement vector: v3 scenarios are refused at open. */
  readonly measuresResources = false;
  readonly runs: AgentRun[] = [];
  readonly #ports = new Map<string, InvocationToolActionPort>();
  readonly #options: AgentCommandOptions;

  constructor(options: AgentCommandOptions) {
    super();
    this.#options = options;
    mkdirSync(options.logDir, { recursive: true, mode: 0o700 });
  }

  /** Keeps the port for the invocation that is about to start. */
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId, signal, traceContext }: ModelActionContext,
  ): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    const run = await this.#run(request, port, signal, traceContext);
    this.runs.push(run);
    return this.nativeExecution(request, snapshot, episodeId, {
      status: run.exitCode === 0 && !run.stopped ? "succeeded" : "failed",
    });
  }

  async #run(
    request: ParticipantActionRequest,
    port: InvocationToolActionPort | undefined,
    signal: AbortSignal,
    traceContext: Readonly<Record<string, string>> = {},
  ): Promise<AgentRun> {
    const options = this.#options;
    const dir = mkdtempSync(join(tmpdir(), "raes-agent-"));
    const logPath = resolve(
      options.logDir,
      `${request.actionInstanceId.replace(/[^A-Za-z0-9_.=-]/g, "_")}.log`,
    );
    let pid: number | undefined;
    try {
      const served = port
        ? await serveToolActionPort(port, { socketPath: join(dir, "port.sock") })
        : undefined;
      try {
        const configPath = join(dir, "mcp.json");
        const inherited = Object.fromEntries(
          INHERITED.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k] as string]])),
        );
        if (served) {
          writeGatewayConfig(
            configPath,
            gatewayConfig({
              raes: options.raes ?? raesCommand(),
              socketPath: served.socketPath,
              token: served.token,
              mapPath: resolve(options.mapPath),
              upstreams: options.upstreams,
              env: inherited,
              ...(options.gatewayTimeoutMs === undefined ? {} : { timeoutMs: options.gatewayTimeoutMs }),
              ...(options.otlp === undefined ? {} : { otlp: options.otlp }),
            }),
          );
        } else writeGatewayConfig(configPath, { mcpServers: {} });
        const exit = await runInProcessGroup({
          command: options.agentCommand,
          env: {
            ...withoutSecrets(process.env),
            [AgentEnv.RAES_MCP_CONFIG]: configPath,
            [AgentEnv.RAES_INVOCATION_ID]: request.actionInstanceId,
            [AgentEnv.RAES_PARTICIPANT]: request.participantAddress,
            [AgentEnv.RAES_EPISODE]: request.episodeId,
            [AgentEnv.RAES_OBSERVATION_POINT]: request.observationPoint,
            // The environment carrier of OpenTelemetry: the agent's spans continue the invocation's trace.
            ...(traceContext.traceparent ? { TRACEPARENT: traceContext.traceparent } : {}),
            ...(traceContext.tracestate ? { TRACESTATE: traceContext.tracestate } : {}),
          },
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          logPath,
          signal,
          onStart: (p) => {
            pid = p;
          },
        });
        return { invocationId: request.actionInstanceId, pid, logPath, ...exit };
      } finally {
        await served?.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The agent's environment never carries a port token of an outer harness. */
function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { RAES_PORT_TOKEN: _token, RAES_HTTP_TOKEN: _http, ...rest } = env;
  return rest;
}

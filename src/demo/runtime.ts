import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type InvocationToolActionPort, serveToolActionPort } from "../port/index.js";
import {
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "../runtime/index.js";
import { demoEntry, raesCommand } from "./launch.js";
import type { AgentReport, DemoPlan } from "./plan.js";

/** How the demo harness reaches its tools. */
export interface DemoHarnessOptions {
  readonly portalUrl: string;
  readonly mapPath: string;
  /** The gateway's upstream timeout. */
  readonly timeoutMs: number;
  /** A safety bound on one agent run; the agent is killed after it. Default 120 s. */
  readonly agentLimitMs?: number;
}

/** One invocation as the demo harness ran it. */
export interface DemoAgentRun {
  readonly invocationId: string;
  readonly plan: DemoPlan;
  readonly exitCode: number | null;
  /** The agent's report; undefined when it did not print one. */
  readonly report: AgentReport | undefined;
  /** The end of the agent's (and gateway's) stderr, for when something went wrong. */
  readonly stderr: string;
}

const EVIDENCE = ["content.participant-observation"];
const STDERR_TAIL = 8 * 1024;

/**
 * The demo's participant runtime. Per invocation it serves the port on a socket in a private temp
 * dir, runs the scripted MCP agent (whose MCP server is `raes mcp-gateway` in front of the demo MCP
 * server) with the port token in its environment, waits for it, and closes the served port.
 */
export class DemoHarnessRuntime extends ReferenceAutonomousParticipantRuntime {
  /** RAES's implementation selection: history names this runtime `participant-implementation:green-worker@1.0.0`. */
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;
  readonly runs: DemoAgentRun[] = [];
  readonly #ports = new Map<string, InvocationToolActionPort>();
  readonly #options: DemoHarnessOptions;

  constructor(options: DemoHarnessOptions) {
    super();
    this.#options = options;
  }

  /** Keeps the port for the invocation that is about to start. */
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    if (!port)
      return this.nativeExecution(request, snapshot, episodeId, {
        status: "failed",
        failureClass: "unsupported_action",
      });
    const plan: DemoPlan = this.runs.length === 0 ? "explore" : "stall";
    const dir = mkdtempSync(join(tmpdir(), "raes-demo-"));
    let run: DemoAgentRun;
    try {
      const served = await serveToolActionPort(port, { socketPath: join(dir, "port.sock") });
      try {
        run = await this.#runAgent(request.actionInstanceId, plan, served.socketPath, served.token);
      } finally {
        await served.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    this.runs.push(run);
    return this.nativeExecution(request, snapshot, episodeId, outerOutcome(run.report));
  }

  #runAgent(invocationId: string, plan: DemoPlan, socketPath: string, token: string): Promise<DemoAgentRun> {
    const gateway = [
      ...raesCommand(),
      "mcp-gateway",
      "--port-socket",
      socketPath,
      "--map",
      this.#options.mapPath,
      "--timeout-ms",
      String(this.#options.timeoutMs),
      "--",
      ...demoEntry("server"),
    ];
    const [command, ...args] = demoEntry("agent");
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      RAES_PORT_TOKEN: token,
      DEMO_PORTAL_URL: this.#options.portalUrl,
      DEMO_GATEWAY_COMMAND: JSON.stringify(gateway),
      DEMO_PLAN: plan,
    };
    return new Promise((resolve, reject) => {
      const child = spawn(command as string, args, { env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr = (stderr + chunk).slice(-STDERR_TAIL);
      });
      const limit = setTimeout(() => child.kill("SIGKILL"), this.#options.agentLimitMs ?? 120_000);
      child.on("error", (error) => {
        clearTimeout(limit);
        reject(error);
      });
      child.on("close", (exitCode) => {
        clearTimeout(limit);
        resolve({ invocationId, plan, exitCode, report: parseReport(stdout), stderr });
      });
    });
  }
}

function parseReport(stdout: string): AgentReport | undefined {
  const line = stdout.trim().split("\n").at(-1);
  if (!line) return undefined;
  try {
    const value = JSON.parse(line) as Partial<AgentReport>;
    return Array.isArray(value.tools) && Array.isArray(value.calls) ? (value as AgentReport) : undefined;
  } catch {
    return undefined;
  }
}

/** The outer action's outcome from what the agent saw. */
function outerOutcome(report: AgentReport | undefined): NativeOutcome {
  if (!report) return { status: "failed", failureClass: "backend_error" };
  const probed = report.calls.some((c) => c.outcome === "succeeded");
  const evidence = probed ? { evidenceRefs: EVIDENCE } : {};
  if (report.calls.some((c) => c.outcome === "indeterminate"))
    return { status: "partial_success", ...evidence };
  return { status: "succeeded", ...evidence };
}

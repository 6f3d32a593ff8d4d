import { type Command, InvalidArgumentError } from "commander";
import { collectUpstream, DEFAULT_AGENT_LOGS } from "../agent-runtime.js";
import { inputFile } from "../input-files.js";
import { otlpUrl } from "../otlp.js";
import type { RunOptions } from "../run-scenario.js";
import { storeOption } from "../store-option.js";

function collectControl(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError("use a whole number ≥ 1");
  return n;
}

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647)
    throw new InvalidArgumentError("use a whole number of milliseconds ≥ 1");
  return n;
}

/** `raes run`: load, validate, register the runtime and drive the clock. */
export function registerRunCommand(program: Command): void {
  storeOption(
    program
      .command("run")
      .argument("<scenario>", "scenario YAML file", inputFile)
      .requiredOption("--manifest <file>", "backend manifest JSON", inputFile)
      .option("--runtime <module>", "module whose default export is a runtime class or factory", inputFile)
      .option(
        "--agent-command <cmd>",
        "instead of --runtime: run CMD (via /bin/sh) per invocation with RAES_MCP_CONFIG and the RAES_* environment",
      )
      .option(
        "--mcp-upstream <name=cmd>",
        "with --agent-command: an upstream MCP server, put behind raes mcp-gateway in the agent's config (repeatable)",
        collectUpstream,
      )
      .option(
        "--map <file>",
        "with --agent-command: the gateway map (MCP tool → governed tool action); a map host mode would refuse is refused before anything runs (exit 2)",
        inputFile,
      )
      .option(
        "--agent-logs <dir>",
        `with --agent-command: per-invocation agent logs (default ${DEFAULT_AGENT_LOGS})`,
      )
      .option(
        "--steps <n>",
        "progression steps to advance the policy clock (default 1, or unlimited with --tick-ms or --real-time)",
        positiveInteger,
      )
      .option(
        "--tick-ms <ms>",
        "real time: one progression step every MS ms of wall time, until Ctrl-C, --steps or every scheduler finished",
        positiveMs,
      )
      .option(
        "--real-time",
        "real time paced by the SDL: one tick per tick period ÷ pacing_ratio of a real_time or dilated progression (--tick-ms overrides)",
      )
      .option(
        "--concurrency <n>",
        "due participants whose invocations run at once within a step (default the manifest's max_autonomous_in_flight)",
        positiveInteger,
      )
      .option(
        "--lease-ttl-ms <ms>",
        "how long this process's participant leases and heartbeat outlive it when it dies (default 30000)",
        positiveMs,
      )
      .option(
        "--stochastic-control <ID=NAMESPACE:SEED>",
        "an agent-policy control for v2 policies (repeatable; the seed is never stored)",
        collectControl,
        [],
      )
      .option(
        "--allow-policy-change",
        "accept a policy edited since the store's run began: a new segment starts under it, recorded as a policy_change operator decision (else the run is refused)",
      )
      .option(
        "--operator <name>",
        "with --allow-policy-change: who allows the change (default: RAES_OPERATOR, else USER@HOST)",
      )
      .option("--note <text>", "with --allow-policy-change: why the policy changed", "")
      .option(
        "--otlp <url>",
        "export spans with OTLP/HTTP to URL/v1/traces (e.g. http://localhost:4318)",
        otlpUrl,
      )
      .option("--json", "print the final summary as JSON"),
  ).action(async (scenarioPath: string, options: RunOptions) => {
    // The runtime, stores, SDL and OpenTelemetry load here, so `raes --help` pays for none of them.
    const { runScenario } = await import("../run-scenario.js");
    await runScenario(scenarioPath, options);
  });
}

import { InvalidArgumentError } from "commander";
import type { ParticipantRuntime } from "../runtime/index.js";
import { makeDirectories } from "./directories.js";
import { loadRuntimeModule } from "./load-runtime.js";

/** The `raes run` options that choose the participant runtime. */
export interface RuntimeChoice {
  readonly runtime?: string;
  readonly agentCommand?: string;
  readonly mcpUpstream?: readonly string[];
  readonly map?: string;
  readonly agentLogs?: string;
  readonly otlp?: string;
}

/** Default directory of the per-invocation agent logs. */
export const DEFAULT_AGENT_LOGS = ".raes/agent-logs";

/** Collects a repeatable `--mcp-upstream NAME=CMD`. */
export function collectUpstream(value: string, previous: readonly string[] = []): string[] {
  if (!/^[A-Za-z0-9_.-]{1,64}=\S/.test(value))
    throw new InvalidArgumentError('use NAME="COMMAND ..." (NAME: letters, digits, _ . -)');
  return [...previous, value];
}

/** What is wrong with the choice, as a usage message; undefined when it is coherent. */
export function runtimeChoiceProblem(choice: RuntimeChoice): string | undefined {
  if ((choice.runtime === undefined) === (choice.agentCommand === undefined))
    return "give exactly one of --runtime MODULE and --agent-command CMD";
  if (choice.agentCommand !== undefined) {
    if (!choice.map) return "--agent-command needs --map MAP.yaml";
    if (!choice.mcpUpstream?.length) return '--agent-command needs at least one --mcp-upstream NAME="CMD"';
  } else if (choice.mcpUpstream?.length || choice.map || choice.agentLogs)
    return "--mcp-upstream, --map and --agent-logs go with --agent-command";
  return undefined;
}

/**
 * Builds the runtime: the module's export, or an agent command run per invocation. The agent
 * command's `--map` must have been checked first (`checkedRunMap`): each invocation's gateway reads it.
 */
export async function buildRuntime(choice: RuntimeChoice): Promise<ParticipantRuntime> {
  if (choice.runtime !== undefined) return loadRuntimeModule(choice.runtime);
  const { AgentCommandRuntime, parseMcpUpstream } = await import("../agent/index.js");
  const mapPath = choice.map as string;
  makeDirectories(choice.agentLogs ?? DEFAULT_AGENT_LOGS, 0o700);
  return new AgentCommandRuntime({
    agentCommand: choice.agentCommand as string,
    upstreams: (choice.mcpUpstream ?? []).flatMap((u) => parseMcpUpstream(u) ?? []),
    mapPath,
    logDir: choice.agentLogs ?? DEFAULT_AGENT_LOGS,
    ...(choice.otlp === undefined ? {} : { otlp: choice.otlp }),
  });
}

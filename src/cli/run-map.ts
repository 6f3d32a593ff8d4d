import type { RuntimeModel } from "../compiler/index.js";
import type { ToolMap } from "../mcp/index.js";
import { CliErrorCode, printError } from "./exit.js";

/**
 * The problems of a `raes run --agent-command` map against the scenario: one line per map tool that
 * no autonomous participant binds, so every call to it would be refused `affordance_unbound` and
 * each invocation would spend an attempt for nothing. Host mode's own check (`hostMapProblems`)
 * decides, per participant: with one autonomous participant its line is host mode's, word for word.
 * With several, the one map serves each participant's agent, so a tool only some bind is left to
 * the port, which refuses it per call for the others.
 */
export async function runMapProblems(model: RuntimeModel, map: ToolMap): Promise<readonly string[]> {
  const { hostMapProblems } = await import("../host/index.js");
  const participants = [
    ...new Set(Object.values(model.autonomousPolicies).flatMap((p) => p.participantAddresses)),
  ].sort();
  // No autonomous participant: no invocation runs, so no call is ever refused for the map.
  if (participants.length === 0) return [];
  const problems: string[] = [];
  for (const [tool, entry] of map.tools) {
    const one: ToolMap = { tools: new Map([[tool, entry]]) };
    const unbound = participants.map((p) => hostMapProblems(model, p, one)[0]);
    if (unbound.some((problem) => problem === undefined)) continue;
    problems.push(
      participants.length === 1
        ? (unbound[0] as string)
        : `map tool ${tool}: none of the scenario's autonomous participants (${participants.join(", ")}) has a binding of tool affordance ${entry.toolAffordanceAddress} to action contract ${entry.actionContractAddress}, so every call would be refused affordance_unbound`,
    );
  }
  return problems;
}

/**
 * Loads `--map` as every command reads it: each diagnostic printed as the gateway prints it
 * (`FILE:LINE:COL: mcp-map.<code> PATH: message`), then, when `nothing` says what did not happen,
 * `raes: cli.usage: --map PATH has errors; NOTHING`. Undefined once they are printed (exit 2).
 */
export async function loadedMap(path: string, nothing?: string): Promise<ToolMap | undefined> {
  const { formatToolMapDiagnostic, loadToolMap } = await import("../mcp/index.js");
  const loaded = loadToolMap(path);
  if (loaded.ok) return loaded.map;
  for (const d of loaded.diagnostics) process.stderr.write(`${formatToolMapDiagnostic(path, d)}\n`);
  if (nothing !== undefined) printError(CliErrorCode.usage, `--map ${path} has errors; ${nothing}`);
  return undefined;
}

/**
 * Loads and checks `raes run --agent-command`'s `--map` before anything is written, as
 * `raes mcp-gateway` does: the map as `loadedMap` reads it, each unbound tool as host mode prints it
 * (`raes: cli.usage: map tool …`). Undefined once the problems are printed: a usage error (exit 2).
 */
export async function checkedRunMap(path: string, model: RuntimeModel): Promise<ToolMap | undefined> {
  const map = await loadedMap(path, "nothing ran");
  if (map === undefined) return undefined;
  const problems = await runMapProblems(model, map);
  for (const problem of problems) printError(CliErrorCode.usage, problem);
  return problems.length > 0 ? undefined : map;
}

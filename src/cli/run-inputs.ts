import { compileScenario, type RuntimeModel } from "../compiler/index.js";
import { readInputFile } from "../input/index.js";
import { checkManifestFile, ManifestDiagnosticCode } from "../manifest/index.js";
import type { ToolMap } from "../mcp/index.js";
import { DiagnosticCode, loadScenario } from "../sdl/index.js";
import { CliErrorCode, ExitCode, printError } from "./exit.js";
import { manifestDiagnosticLine, scenarioDiagnosticLine } from "./input-files.js";
import { loadedMap } from "./run-map.js";

/** The inputs `raes run` and host mode read: the compiled scenario and the manifest's JSON. */
export interface RunInputs {
  readonly model: RuntimeModel;
  readonly manifest: unknown;
}

/**
 * Reads a run's scenario and manifest as `raes run`, host mode and `raes config mcp-host` all read
 * them: each finding printed as `raes validate` prints it (`FILE:LINE:COL: error CODE message`),
 * then one `cli.scenario-invalid` or `cli.manifest-invalid` line ending in `nothing` (what did not
 * happen). Answers the inputs, or the exit code (docs/guide/troubleshooting.md#exit-codes): 2 when
 * a file could not be read at all, 1 for findings in one that could.
 */
export async function readRunInputs(
  scenarioPath: string,
  manifestPath: string,
  nothing: string,
): Promise<RunInputs | { readonly exit: ExitCode }> {
  const { scenario, diagnostics } = loadScenario(scenarioPath);
  const errors = diagnostics.filter((d) => d.severity === "error");
  for (const d of errors) process.stderr.write(`${scenarioDiagnosticLine(scenarioPath, d)}\n`);
  if (!scenario || errors.length > 0) {
    printError(CliErrorCode.scenario_invalid, `${scenarioPath}: the scenario has errors; ${nothing}`);
    return { exit: exitFor(errors.some((d) => d.code === DiagnosticCode.fileUnreadable)) };
  }
  const model = compileScenario(scenario);
  const check = await checkManifestFile(manifestPath, model);
  for (const d of check.diagnostics) process.stderr.write(`${manifestDiagnosticLine(manifestPath, d)}\n`);
  if (!check.ok) {
    printError(CliErrorCode.manifest_invalid, `${manifestPath}: the manifest has errors; ${nothing}`);
    return {
      exit: exitFor(check.diagnostics.some((d) => d.code === ManifestDiagnosticCode.file_unreadable)),
    };
  }
  // Read again through the same bounded reader; the check above proved it is a small regular file.
  const read = readInputFile(manifestPath, 1_000_000);
  if (!read.ok) {
    printError(read.refusal, read.message);
    return { exit: ExitCode.usage };
  }
  return { model, manifest: JSON.parse(read.text) as unknown };
}

const exitFor = (unreadable: boolean): ExitCode => (unreadable ? ExitCode.usage : ExitCode.findings);

/**
 * The participant host mode runs (`--participant`, or the only one with tool affordance bindings),
 * with every map tool bound to it; or, each problem printed as `cli.usage`, the exit code (2).
 */
export async function hostParticipantFor(
  model: RuntimeModel,
  participant: string | undefined,
  map: ToolMap,
): Promise<{ readonly participant: string } | { readonly exit: ExitCode }> {
  const { hostMapProblems, hostParticipant } = await import("../host/index.js");
  const chosen = hostParticipant(model, participant);
  if ("problem" in chosen) {
    printError(CliErrorCode.usage, chosen.problem);
    return { exit: ExitCode.usage };
  }
  const unbound = hostMapProblems(model, chosen.participant, map);
  for (const problem of unbound) printError(CliErrorCode.usage, problem);
  return unbound.length > 0 ? { exit: ExitCode.usage } : { participant: chosen.participant };
}

/** The inputs `raes config mcp-host` writes into the block, as the gateway in host mode will read them. */
export interface McpHostInputs {
  readonly scenario: string;
  readonly manifest: string;
  readonly map: string;
  readonly participant?: string;
}

/**
 * Whether `raes mcp-gateway` in host mode would start on these inputs: the scenario and manifest as
 * `readRunInputs` reads them, the map as the gateway loads it (each diagnostic as
 * `FILE:LINE:COL: mcp-map.<code> PATH: message`, then `cli.usage`), and the participant and the
 * map's bindings to it by `hostParticipantFor`: the very functions host mode checks them with, so a
 * block is printed only for a gateway that gets past them. False when any problem was printed.
 */
export async function hostInputsStart(inputs: McpHostInputs): Promise<boolean> {
  const read = await readRunInputs(inputs.scenario, inputs.manifest, "no block printed");
  if ("exit" in read) return false;
  const map = await loadedMap(inputs.map, "no block printed");
  return map !== undefined && !("exit" in (await hostParticipantFor(read.model, inputs.participant, map)));
}

import { compileScenario } from "../compiler/index.js";
import { checkManifestFile } from "../manifest/index.js";
import { hasErrors, loadScenario } from "../sdl/index.js";
import { CliErrorCode, printError } from "./exit.js";
import { manifestDiagnosticLine, scenarioDiagnosticLine } from "./input-files.js";

/** The inputs `raes config mcp-host` writes into the block, as the gateway in host mode will read them. */
export interface McpHostInputs {
  readonly scenario: string;
  readonly manifest: string;
  readonly map: string;
  readonly participant?: string;
}

/**
 * Whether `raes mcp-gateway` in host mode would start on these inputs: the scenario, the manifest,
 * the map, the participant and the map's bindings to it, each checked by the very function host mode
 * checks it with, so a block is printed only for a gateway that gets past them. Each problem is
 * printed first: a scenario or manifest diagnostic as `raes run` prints it, then
 * `cli.scenario-invalid` or `cli.manifest-invalid`; a map diagnostic as the gateway prints it
 * (`FILE:LINE:COL: mcp-map.<code> PATH: message`); a participant or binding problem as host mode
 * prints it (`cli.usage`). False when any was printed: the command line is wrong (exit 2).
 */
export async function hostInputsStart(inputs: McpHostInputs): Promise<boolean> {
  const { scenario, diagnostics } = loadScenario(inputs.scenario);
  for (const d of diagnostics.filter((x) => x.severity === "error"))
    process.stderr.write(`${scenarioDiagnosticLine(inputs.scenario, d)}\n`);
  if (!scenario || hasErrors(diagnostics)) {
    printError(
      CliErrorCode.scenario_invalid,
      `${inputs.scenario}: the scenario has errors; no block printed`,
    );
    return false;
  }
  const model = compileScenario(scenario);
  const check = await checkManifestFile(inputs.manifest, model);
  for (const d of check.diagnostics) process.stderr.write(`${manifestDiagnosticLine(inputs.manifest, d)}\n`);
  if (!check.ok) {
    printError(
      CliErrorCode.manifest_invalid,
      `${inputs.manifest}: the manifest has errors; no block printed`,
    );
    return false;
  }
  const { formatToolMapDiagnostic, loadToolMap } = await import("../mcp/index.js");
  const loaded = loadToolMap(inputs.map);
  if (!loaded.ok) {
    for (const d of loaded.diagnostics) process.stderr.write(`${formatToolMapDiagnostic(inputs.map, d)}\n`);
    printError(CliErrorCode.usage, `--map ${inputs.map} has errors; no block printed`);
    return false;
  }
  const { hostMapProblems, hostParticipant } = await import("../host/index.js");
  const chosen = hostParticipant(model, inputs.participant);
  if ("problem" in chosen) {
    printError(CliErrorCode.usage, chosen.problem);
    return false;
  }
  const unbound = hostMapProblems(model, chosen.participant, loaded.map);
  for (const problem of unbound) printError(CliErrorCode.usage, problem);
  return unbound.length === 0;
}

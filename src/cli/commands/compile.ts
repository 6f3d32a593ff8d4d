import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import type { RuntimeModel } from "../../compiler/index.js";
import { ExitCode } from "../exit.js";
import { inputFile, outputFile } from "../input-files.js";

interface CompileOptions {
  readonly output?: string;
  readonly json?: boolean;
  readonly summary?: boolean;
}

function table(rows: readonly (readonly string[])[]): string {
  // A loop, not Math.max(...): a spread of many rows overflows the stack.
  const widths =
    rows[0]?.map((_, column) => rows.reduce((most, row) => Math.max(most, row[column]?.length ?? 0), 0)) ??
    [];
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
}

/** Renders the affordance bindings as a table, each followed by its targets. */
export function affordanceSummary(model: RuntimeModel): string {
  const bindings = model.affordanceBindings;
  let out = `${model.scenario.name} ${model.scenario.version}: ${bindings.length} affordance bindings\n\n`;
  if (bindings.length === 0) return out;
  const rows = [["PARTICIPANT", "TOOL AFFORDANCE", "ACTION CONTRACT", "OBSERVATION BOUNDARIES", "TARGETS"]];
  for (const binding of bindings) {
    rows.push([
      binding.participantAddress,
      binding.toolAffordanceAddress,
      binding.actionContractAddress,
      binding.observationBoundaryAddresses.join(", "),
      String(binding.targetAddresses.length),
    ]);
  }
  out += table(rows);
  for (const binding of bindings) {
    out += `\n${binding.participantAddress} x ${binding.toolAffordanceAddress} x ${binding.actionContractAddress}\n`;
    for (const target of binding.targetAddresses) out += `  ${target}\n`;
  }
  return out;
}

async function compileCommand(file: string, options: CompileOptions): Promise<void> {
  // Loaded here, not at the top, so `raes --help` does not load the SDL loader, YAML and the compiler.
  const { DiagnosticCode, formatDiagnostic, hasErrors, loadScenario } = await import("../../sdl/index.js");
  const { compileScenario, toWireJson } = await import("../../compiler/index.js");
  const { scenario, diagnostics } = loadScenario(file, { source: "path" });
  if (hasErrors(diagnostics) || scenario === undefined) {
    let out = "";
    for (const diagnostic of diagnostics) out += `${formatDiagnostic(diagnostic, file)}\n`;
    process.stderr.write(out);
    const unreadable = diagnostics.some((d) => d.code === DiagnosticCode.fileUnreadable);
    process.exitCode = unreadable ? ExitCode.usage : ExitCode.findings;
    return;
  }
  const model = compileScenario(scenario);
  const json = `${toWireJson(model)}\n`;
  if (options.output !== undefined) {
    try {
      writeFileSync(options.output, json);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      process.stderr.write(`raes compile: cannot write ${options.output}: ${reason}\n`);
      process.exitCode = ExitCode.findings;
      return;
    }
  }
  if (options.summary === true) process.stdout.write(affordanceSummary(model));
  else if (options.output === undefined) process.stdout.write(json);
  process.exitCode = ExitCode.ok;
}

/** Registers `raes compile FILE [-o FILE] [--json] [--summary]`. */
export function registerCompileCommand(program: Command): void {
  program
    .command("compile")
    .argument("<file>", "scenario YAML file", inputFile)
    .option("-o, --output <file>", "write the JSON model to this file instead of stdout", outputFile)
    .option("--json", "print the model as JSON (the default)")
    .option("--summary", "print a readable table of the affordance bindings instead of the JSON")
    .action(compileCommand);
}

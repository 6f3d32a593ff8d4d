import type { Command } from "commander";
import { formatDiagnostic, hasErrors, loadScenario } from "../../sdl/index.js";
import { ExitCode, printJson } from "../exit.js";
import { inputFile } from "../input-files.js";
import type { RegisterCommand } from "./index.js";

interface ValidateOptions {
  readonly json?: boolean;
}

function validateCommand(file: string, options: ValidateOptions): void {
  const { diagnostics } = loadScenario(file, { source: "path" });
  const ok = !hasErrors(diagnostics);
  if (options.json === true) {
    printJson({ file, ok, diagnostics });
  } else {
    let out = "";
    for (const diagnostic of diagnostics) out += `${formatDiagnostic(diagnostic, file)}\n`;
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
    const warnings = diagnostics.length - errors;
    out += ok ? `${file}: ok (${warnings} warnings)\n` : `${file}: ${errors} errors, ${warnings} warnings\n`;
    process.stdout.write(out);
  }
  process.exitCode = ok ? ExitCode.ok : ExitCode.findings;
}

/** Registers `raes validate FILE [--json]`. */
export const registerValidateCommand: RegisterCommand = (program: Command) => {
  program
    .command("validate")
    .description("load a RAES scenario and report every syntax, shape and semantic finding")
    .argument("<file>", "scenario YAML file", inputFile)
    .option("--json", "print {file, ok, diagnostics} as JSON")
    .action(validateCommand);
};

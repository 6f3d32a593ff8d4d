import type { Command } from "commander";
import { counted, ExitCode, printJson } from "../exit.js";
import { inputFile } from "../input-files.js";

interface ValidateOptions {
  readonly json?: boolean;
}

async function validateCommand(file: string, options: ValidateOptions): Promise<void> {
  // Loaded here, not at the top, so `raes --help` does not load the SDL loader and YAML.
  const { DiagnosticCode, formatDiagnostic, hasErrors, loadScenario } = await import("../../sdl/index.js");
  const { diagnostics } = loadScenario(file, { source: "path" });
  const ok = !hasErrors(diagnostics);
  if (options.json === true) {
    printJson({ file, ok, diagnostics });
  } else {
    let out = "";
    for (const diagnostic of diagnostics) out += `${formatDiagnostic(diagnostic, file)}\n`;
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
    const warnings = diagnostics.length - errors;
    out += ok
      ? `${file}: ok (${counted(warnings, "warning")})\n`
      : `${file}: ${counted(errors, "error")}, ${counted(warnings, "warning")}\n`;
    process.stdout.write(out);
  }
  // A file that cannot be read is an input error (exit 2), like a directory or a missing store.
  const unreadable = diagnostics.some((d) => d.code === DiagnosticCode.fileUnreadable);
  process.exitCode = ok ? ExitCode.ok : unreadable ? ExitCode.usage : ExitCode.findings;
}

/** Registers `raes validate FILE [--json]`. */
export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .argument("<file>", "scenario YAML file", inputFile)
    .option("--json", "print {file, ok, diagnostics} as JSON")
    .action(validateCommand);
}

import type { Command } from "commander";
import type { RuntimeModel } from "../../compiler/index.js";
import type { ManifestDiagnostic } from "../../manifest/index.js";
import type { Diagnostic } from "../../sdl/index.js";
import { ExitCode, printJson } from "../exit.js";
import { inputFile } from "../input-files.js";

interface CheckOptions {
  readonly scenario?: string;
  readonly json?: boolean;
}

interface ScenarioOutcome {
  readonly model?: RuntimeModel;
  readonly diagnostics: readonly Diagnostic[];
  /** The findings as `raes validate` prints them. */
  readonly lines: readonly string[];
  /** The scenario file could not be read (an input error, exit 2). */
  readonly unreadable: boolean;
}

/** Loads and compiles a scenario; the SDL and compiler modules load only when a scenario is asked for. */
async function compileScenarioFile(path: string): Promise<ScenarioOutcome> {
  const {
    DiagnosticCode,
    formatDiagnostic: formatScenarioDiagnostic,
    hasErrors,
    loadScenario,
  } = await import("../../sdl/index.js");
  const { compileScenario } = await import("../../compiler/index.js");
  const { scenario, diagnostics } = loadScenario(path, { source: "path" });
  const lines = diagnostics.map((diagnostic) => formatScenarioDiagnostic(diagnostic, path));
  const unreadable = diagnostics.some((d) => d.code === DiagnosticCode.fileUnreadable);
  if (hasErrors(diagnostics) || scenario === undefined) return { diagnostics, lines, unreadable };
  return { model: compileScenario(scenario), diagnostics, lines, unreadable };
}

function formatDiagnostic(file: string, diagnostic: ManifestDiagnostic): string {
  const path = diagnostic.path === "" ? "(document)" : diagnostic.path;
  return `${file}: ${diagnostic.severity} ${diagnostic.code} ${path} ${diagnostic.message}\n`;
}

async function checkCommand(file: string, options: CheckOptions): Promise<void> {
  const scenario = options.scenario === undefined ? undefined : await compileScenarioFile(options.scenario);
  const { checkManifestFile, ManifestDiagnosticCode } = await import("../../manifest/index.js");
  const check = await checkManifestFile(file, scenario?.model);
  const scenarioFailed = scenario !== undefined && scenario.model === undefined;
  const clean = check.ok && !scenarioFailed;
  if (options.json === true) {
    printJson({
      file,
      ok: clean,
      diagnostics: check.diagnostics,
      ...(scenario === undefined
        ? {}
        : {
            scenario: {
              file: options.scenario,
              compiled: !scenarioFailed,
              diagnostics: scenario.diagnostics,
            },
          }),
    });
  } else {
    let out = "";
    for (const line of scenario?.lines ?? []) out += `${line}\n`;
    if (scenarioFailed) out += `${options.scenario}: scenario did not compile; manifest checked without it\n`;
    for (const diagnostic of check.diagnostics) out += formatDiagnostic(file, diagnostic);
    if (clean) out += `${file}: ok\n`;
    process.stdout.write(out);
  }
  // A file that cannot be read is an input error (exit 2), like a directory or a missing store.
  const unreadable =
    scenario?.unreadable === true ||
    check.diagnostics.some((d) => d.code === ManifestDiagnosticCode.file_unreadable);
  process.exitCode = clean ? ExitCode.ok : unreadable ? ExitCode.usage : ExitCode.findings;
}

/** Registers `raes manifest check FILE [--scenario FILE] [--json]`. */
export function registerManifestCommand(program: Command): void {
  const manifest = program.command("manifest");
  manifest
    .command("check")
    .description(
      "check a backend manifest's participant-runtime capabilities, claim and execution-binding offers",
    )
    .argument("<file>", "backend manifest JSON file", inputFile)
    .option(
      "--scenario <file>",
      "also check the manifest against this scenario's compiled autonomous policies",
      inputFile,
    )
    .option("--json", "print the result as JSON")
    .action(checkCommand);
}

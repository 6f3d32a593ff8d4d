import type { Command } from "commander";
import type { RuntimeModel } from "../../compiler/index.js";
import { checkManifestFile, type ManifestDiagnostic } from "../../manifest/index.js";
import { ExitCode, printJson } from "../exit.js";
import type { RegisterCommand } from "./index.js";

interface CheckOptions {
  readonly scenario?: string;
  readonly json?: boolean;
}

/** A scenario finding as the SDL loader reports it. */
interface ScenarioDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
}

interface ScenarioOutcome {
  readonly model?: RuntimeModel;
  readonly diagnostics: readonly ScenarioDiagnostic[];
}

/** Loads and compiles a scenario; the SDL and compiler modules load only when a scenario is asked for. */
async function compileScenarioFile(path: string): Promise<ScenarioOutcome> {
  const { loadScenario } = await import("../../sdl/index.js");
  const { compileScenario } = await import("../../compiler/index.js");
  const loaded = await loadScenario(path);
  const diagnostics: readonly ScenarioDiagnostic[] = loaded.diagnostics;
  const failed = diagnostics.some((diagnostic) => diagnostic.severity === "error");
  if (failed || loaded.scenario === undefined) return { diagnostics };
  return { model: compileScenario(loaded.scenario), diagnostics };
}

function formatDiagnostic(file: string, diagnostic: ScenarioDiagnostic | ManifestDiagnostic): string {
  const position =
    "line" in diagnostic && diagnostic.line !== undefined
      ? `${diagnostic.line}:${diagnostic.column ?? 1}:`
      : "";
  const path = diagnostic.path === "" ? "(document)" : diagnostic.path;
  return `${file}:${position} ${diagnostic.severity} ${diagnostic.code} ${path} ${diagnostic.message}\n`;
}

async function checkCommand(file: string, options: CheckOptions): Promise<void> {
  const scenario = options.scenario === undefined ? undefined : await compileScenarioFile(options.scenario);
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
    for (const diagnostic of scenario?.diagnostics ?? [])
      out += formatDiagnostic(options.scenario ?? "", diagnostic);
    if (scenarioFailed) out += `${options.scenario}: scenario did not compile; manifest checked without it\n`;
    for (const diagnostic of check.diagnostics) out += formatDiagnostic(file, diagnostic);
    if (clean) out += `${file}: ok\n`;
    process.stdout.write(out);
  }
  process.exitCode = clean ? ExitCode.ok : ExitCode.findings;
}

/** Registers `raes manifest check FILE [--scenario FILE] [--json]`. */
export const registerManifestCommand: RegisterCommand = (program: Command) => {
  const manifest = program.command("manifest").description("work with backend manifests");
  manifest
    .command("check")
    .description(
      "check a backend manifest's participant-runtime capabilities, claim and execution-binding offers",
    )
    .argument("<file>", "backend manifest JSON file")
    .option(
      "--scenario <file>",
      "also check the manifest against this scenario's compiled autonomous policies",
    )
    .option("--json", "print the result as JSON")
    .action(checkCommand);
};

import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { ExitCode } from "./exit.js";

/** Builds the `raes` command-line program. */
export function buildProgram(): Command {
  const program = new Command("raes")
    .description("RAES participant runtime: govern every agent tool call as a participant action")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI with argv and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    process.stderr.write(`raes: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.findings;
  }
}

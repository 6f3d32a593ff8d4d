import { Command, CommanderError } from "commander";
import { commandLoaders } from "./commands/index.js";
import { ExitCode } from "./exit.js";

/** Builds the `raes` program with the named command, or with every command when none is named. */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command("raes")
    .description("RAES participant runtime: govern every agent tool call as a participant action")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  const named = argv[0] === undefined ? undefined : commandLoaders[argv[0]];
  const loaders = named ? [named] : Object.values(commandLoaders);
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program);
  return program;
}

/** Runs the CLI with argv and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // Matched by code, not class, so commands that never open a store do not load the store module.
    if (error instanceof Error && (error as { code?: unknown }).code === "store.missing") {
      process.stderr.write(`raes: ${error.message}\n`);
      return ExitCode.usage;
    }
    // A RAES-coded error (`domain.name`) leads with its code, so scripts can match it; Node's own
    // codes (ENOENT) are already in their message.
    const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const prefix = typeof code === "string" && code.includes(".") ? `${code}: ` : "";
    process.stderr.write(`raes: ${prefix}${message}\n`);
    return ExitCode.findings;
  }
}

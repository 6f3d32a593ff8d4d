import { Command, CommanderError, Help, InvalidArgumentError } from "commander";
import { commandLoaders, commandSummaries } from "./commands/index.js";
import { CliErrorCode, ExitCode, errorLine } from "./exit.js";

/** The command argv names: its first word, or the word after `help`. */
function namedCommand(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  const name = first === "help" ? second : first;
  return name !== undefined && Object.hasOwn(commandLoaders, name) ? name : undefined;
}

/**
 * Builds the `raes` program. With a command named, only that command is loaded; without one
 * (`raes --help`, `--version`, a mistyped command) every command is listed from its summary and
 * none is loaded, so those answer on commander alone. `all` loads every command (for tests).
 */
export async function buildProgram(argv: readonly string[] = [], all = false): Promise<Command> {
  const program = new Command("raes")
    .description("RAES participant runtime: govern every agent tool call as a participant action")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride()
    // Every word after the command is the command's, so a subcommand's options are its own
    // (`raes operations show ID --store S`).
    .enablePositionalOptions()
    // Commander's own errors ("error: unknown option …") get the line every other error has.
    .configureOutput({ outputError: (text, write) => write(usageLine(text)) });
  const named = namedCommand(argv);
  if (named === undefined && !all) {
    const terms = new Map<string, string>();
    for (const [name, [term, description]] of Object.entries(commandSummaries)) {
      program.command(name).description(description);
      terms.set(name, term);
    }
    const standard = new Help();
    program.configureHelp({
      subcommandTerm: (command) => terms.get(command.name()) ?? standard.subcommandTerm(command),
    });
    return program;
  }
  const loaders = named === undefined ? Object.values(commandLoaders) : [commandLoaders[named]];
  for (const load of loaders) if (load) (await load())(program);
  return program;
}

/** Runs the CLI with argv and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    // Thrown by an action (a file argument checked there), commander never printed it.
    if (error instanceof InvalidArgumentError) {
      process.stderr.write(`raes: ${CliErrorCode.usage}: ${error.message}\n`);
      return ExitCode.usage;
    }
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // Imported here, so `raes --help` and `--version` load no module outside the CLI.
    const { codeOf } = await import("../records/index.js");
    process.stderr.write(`${errorLine(codeOf(error), error)}\n`);
    // Matched by code, not class, so commands that never open a store do not load the store module.
    if (USAGE_CODES.has(codeOf(error) ?? "")) return ExitCode.usage;
    return ExitCode.findings;
  }
}

/**
 * The codes of errors that mean the command line was wrong (exit 2): a store it names that does not
 * exist or is not a store, a part of an operation id that names several, or an optional package the
 * command line needs (`pg`, the OTLP exporter) that is not installed. Spelled here, so the CLI loads
 * no store or operations module to tell.
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  "store.missing",
  "store.not-a-store",
  "store.driver-missing",
  "operation.ambiguous-id",
  CliErrorCode.otlp_exporter_missing,
  CliErrorCode.store_unchained,
  "evidence.bundle-unreadable",
  "evidence.bundle-unwritable",
  "evidence.input-unanchored",
]);

/** A commander error line as `raes: cli.usage: message`; the help that follows it is left as it is. */
export function usageLine(text: string): string {
  return text.startsWith("error: ") ? `raes: ${CliErrorCode.usage}: ${text.slice("error: ".length)}` : text;
}

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, InvalidArgumentError, Option } from "commander";
import { absoluteStoreUrl } from "../../printed/index.js";
import { CliErrorCode, ExitCode, printError } from "../exit.js";
import { inputFile } from "../input-files.js";
import { DEFAULT_STORE_URL, storeUrl } from "../store-option.js";

/** The MCP hosts whose configuration `raes config mcp-host` writes. */
export const McpHostClient = {
  /** Claude Desktop: `claude_desktop_config.json`, `mcpServers`. */
  claude_desktop: "claude-desktop",
  /** VS Code: `.vscode/mcp.json` or the user `mcp.json`, `servers` with `type: "stdio"`. */
  vscode: "vscode",
  /** Cursor: `~/.cursor/mcp.json` or `.cursor/mcp.json`, `mcpServers`. */
  cursor: "cursor",
} as const;
/** An MCP host `raes config mcp-host` writes for. */
export type McpHostClient = (typeof McpHostClient)[keyof typeof McpHostClient];

interface McpHostOptions {
  readonly client: McpHostClient;
  readonly name: string;
  readonly scenario: string;
  readonly manifest: string;
  readonly map: string;
  readonly participant?: string;
  readonly store: string;
  readonly idleTimeout?: string;
  readonly env: readonly string[];
}

// Built code runs as .js under plain node; source runs as .ts under tsx, and so must the gateway.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The absolute command line of this very CLI: `node` and `main.js`, so it runs from any directory. */
export function thisCli(): string[] {
  const main = join(dirname(fileURLToPath(import.meta.url)), "..", `main${FROM_SOURCE ? ".ts" : ".js"}`);
  return FROM_SOURCE
    ? [process.execPath, "--import", import.meta.resolve("tsx"), main]
    : [process.execPath, main];
}

/** Whether PATH names an executable regular file, as a host's spawn needs. */
function executableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The upstream command as an absolute path (a host may start servers with another PATH and working
 * directory): `node` is the node running this CLI, a command with a `/` the executable file it names
 * here, a bare name the first executable file on PATH. Undefined when there is none: the host could
 * not start it either.
 */
function upstreamCommand(command: string): string | undefined {
  if (command === "node") return process.execPath;
  if (command.includes("/")) return executableFile(resolve(command)) ? resolve(command) : undefined;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    // A relative PATH entry (`node_modules/.bin`) is resolved here: the host starts from elsewhere.
    if (dir !== "" && executableFile(join(dir, command))) return resolve(dir, command);
  }
  return undefined;
}

/**
 * Whether an upstream argument reads as a relative file path (`server.js`, `./server`, `dist/x`): it
 * has a `/` or ends in a file extension, and is no option, URL, `NAME=VALUE` or npm scope
 * (`@scope/pkg`, as `npx` takes). A guess, so what it finds is warned about, never refused.
 */
function looksLikeRelativePath(arg: string): boolean {
  if (/^[-@]/.test(arg) || isAbsolute(arg) || arg.includes("=") || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(arg))
    return false;
  return arg.includes("/") || /\.[A-Za-z][A-Za-z0-9]{0,4}$/.test(arg);
}

/**
 * The upstream arguments with each one that names a file here made absolute, and the relative-looking
 * ones that name none: those stay as given, and the host resolves them from its own working directory.
 */
function upstreamArgs(args: readonly string[]): { args: string[]; missing: string[] } {
  const missing: string[] = [];
  const absolute = args.map((arg, i) => {
    if (arg.startsWith("-") || isAbsolute(arg)) return arg;
    if (statSync(arg, { throwIfNoEntry: false })) return resolve(arg);
    // After `-m` or `-c` (`python3 -m pkg.server`, `sh -c '…'`) comes a module name or code, never a file.
    if (looksLikeRelativePath(arg) && !CODE_OR_MODULE_FLAGS.has(args[i - 1] ?? "")) missing.push(arg);
    return arg;
  });
  return { args: absolute, missing };
}

/** The flags whose value is a module name or a program's text (Python's, a shell's), not a file path. */
const CODE_OR_MODULE_FLAGS = new Set(["-m", "-c"]);

function envPair(value: string, previous: readonly string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError("use NAME=VALUE");
  return [...previous, value];
}

/**
 * The host configuration block: one server whose command is this `node` and whose first argument is
 * this CLI, with the scenario, manifest, map and store absolute; `upstream` is already resolved
 * (`upstreamCommand`, `upstreamArgs`), so the host starts it from any working directory.
 */
export function mcpHostConfig(
  upstream: { readonly command: string; readonly args: readonly string[] },
  options: McpHostOptions,
): Record<string, unknown> {
  const gatewayArgs = [
    ...thisCli().slice(1),
    "mcp-gateway",
    "--scenario",
    resolve(options.scenario),
    "--manifest",
    resolve(options.manifest),
    "--map",
    resolve(options.map),
    "--store",
    absoluteStoreUrl(options.store),
    ...(options.participant === undefined ? [] : ["--participant", options.participant]),
    ...(options.idleTimeout === undefined ? [] : ["--idle-timeout", options.idleTimeout]),
    "--",
    upstream.command,
    ...upstream.args,
  ];
  const env = Object.fromEntries(
    options.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
  const server = {
    ...(options.client === McpHostClient.vscode ? { type: "stdio" } : {}),
    command: process.execPath,
    args: gatewayArgs,
    ...(options.env.length > 0 ? { env } : {}),
  };
  const key = options.client === McpHostClient.vscode ? "servers" : "mcpServers";
  return { [key]: { [options.name]: server } };
}

const WHERE: Readonly<Record<McpHostClient, string>> = {
  "claude-desktop": "claude_desktop_config.json (Settings → Developer → Edit Config)",
  vscode: ".vscode/mcp.json in a workspace, or the user mcp.json (MCP: Open User Configuration)",
  cursor: "~/.cursor/mcp.json, or .cursor/mcp.json in a project",
};

/** `raes config`: configurations for other programs. */
export function registerConfigCommand(program: Command): void {
  const config = program.command("config");
  config
    .command("mcp-host")
    .description("print an MCP host's server block that runs this gateway in host mode, from any directory")
    .usage(
      "[--client claude-desktop|vscode|cursor] [--name NAME] --scenario S --manifest M --map MAP [--participant P] [--store URL] [--env NAME=VALUE]... -- UPSTREAM_COMMAND...",
    )
    .argument("<upstream...>", "the upstream MCP server's command and arguments (after --)")
    .addOption(
      new Option("--client <client>", "the MCP host the block is for")
        .choices(Object.values(McpHostClient))
        .default(McpHostClient.claude_desktop),
    )
    .option("--name <name>", "the server's name in the block", "raes")
    .requiredOption("--scenario <file>", "the scenario", inputFile)
    .requiredOption("--manifest <file>", "the backend manifest (JSON)", inputFile)
    .requiredOption("--map <file>", "the gateway map (YAML)", inputFile)
    .option("--participant <address>", "the participant to run (default: the only one with tool affordances)")
    .option("--store <url>", "control-plane store URL, made absolute", storeUrl, DEFAULT_STORE_URL)
    .option("--idle-timeout <seconds>", "end a session's invocation after this long without a request")
    .option(
      "--env <NAME=VALUE>",
      "an environment variable for the gateway and the upstream (repeatable)",
      envPair,
      [],
    )
    .addHelpText(
      "after",
      `
Prints JSON on stdout: the host's server block. Its command is the absolute path of the node
running this CLI and its first argument the absolute path of this CLI, so the host starts it
from any working directory, installed globally or not. Scenario, manifest, map and store are made
absolute, as are the upstream command and upstream arguments naming files here.

Nothing is printed on stdout, and the exit is 2, for a block whose gateway would not start:
  - a scenario, manifest or map host mode refuses (missing, unreadable or with errors): each
    diagnostic with its own code, then cli.scenario-invalid, cli.manifest-invalid or cli.usage
  - no participant to run (--participant), or a map tool not bound to it (cli.usage)
  - an upstream command that is not on PATH, or not an executable file when it has a /
    (cli.upstream-command-not-found)
An upstream argument that reads as a relative file path (a / or a file extension, such as
server.js) but names no file here is kept as given, with a warning on stderr: the host resolves
it from its own working directory. Give it as an absolute path, or run this where it is.

Where each host reads it:
${Object.entries(WHERE)
  .map(([client, where]) => `  ${client.padEnd(15)}${where}`)
  .join("\n")}

Example:
  raes config mcp-host --client vscode --scenario s.yaml --manifest m.json --map map.yaml -- node server.js
`,
    )
    .action(async ([given, ...rest]: string[], options: McpHostOptions) => {
      // A block is printed only for a gateway that would start: each problem is what host mode
      // itself would refuse at the host's first start, where nobody reads its stderr.
      const { hostInputsStart } = await import("../run-inputs.js");
      if (!(await hostInputsStart(options))) {
        process.exitCode = ExitCode.usage;
        return;
      }
      const command = upstreamCommand(given as string);
      if (command === undefined) {
        printError(
          CliErrorCode.upstream_command_not_found,
          `the upstream command ${given} is ${given?.includes("/") ? "not an executable file" : "not found on PATH"}; no block printed`,
        );
        process.exitCode = ExitCode.usage;
        return;
      }
      const { args, missing } = upstreamArgs(rest);
      for (const arg of missing)
        process.stderr.write(
          `raes config mcp-host: warning: upstream argument ${arg} names no file in ${process.cwd()}; it stays as given, so the host resolves it from its own working directory (give its absolute path if it is a file)\n`,
        );
      process.stdout.write(`${JSON.stringify(mcpHostConfig({ command, args }, options), null, 2)}\n`);
      process.stderr.write(`raes config mcp-host: paste into ${WHERE[options.client]}\n`);
    });
}

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, InvalidArgumentError, Option } from "commander";
import { absoluteStoreUrl } from "../../printed/index.js";
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

/** A bare command name found on PATH, as an absolute path; a host may start servers with another PATH. */
function onPath(command: string): string {
  if (command.includes("/")) return resolve(command);
  if (command === "node") return process.execPath;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return command;
}

/** An upstream argument naming a file that exists here, made absolute; any other argument as given. */
function absoluteIfFile(arg: string): string {
  if (arg.startsWith("-") || isAbsolute(arg)) return arg;
  return statSync(arg, { throwIfNoEntry: false }) ? resolve(arg) : arg;
}

function envPair(value: string, previous: readonly string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError("use NAME=VALUE");
  return [...previous, value];
}

/**
 * The host configuration block: one server whose command is this `node` and whose first argument is
 * this CLI, every path absolute, so the host starts it from any working directory.
 */
export function mcpHostConfig(upstream: readonly string[], options: McpHostOptions): Record<string, unknown> {
  const [command, ...args] = upstream;
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
    onPath(command as string),
    ...args.map(absoluteIfFile),
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
absolute, as are an upstream command found on PATH and upstream arguments naming files here.

Where each host reads it:
${Object.entries(WHERE)
  .map(([client, where]) => `  ${client.padEnd(15)}${where}`)
  .join("\n")}

Example:
  raes config mcp-host --client vscode --scenario s.yaml --manifest m.json --map map.yaml -- node server.js
`,
    )
    .action((upstream: string[], options: McpHostOptions) => {
      process.stdout.write(`${JSON.stringify(mcpHostConfig(upstream, options), null, 2)}\n`);
      process.stderr.write(`raes config mcp-host: paste into ${WHERE[options.client]}\n`);
    });
}

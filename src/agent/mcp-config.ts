import { writeFileSync } from "node:fs";

/** One upstream MCP server an agent may use, as `--mcp-upstream NAME="CMD ..."` names it. */
export interface McpUpstream {
  readonly name: string;
  /** A shell command line, run with /bin/sh -c by the gateway. */
  readonly command: string;
}

/** One server entry of the common `mcpServers` JSON form (Claude Desktop, Cursor, the SDKs). */
export interface McpServerEntry {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** Parses `NAME=CMD ...`; undefined when there is no name or no command. */
export function parseMcpUpstream(text: string): McpUpstream | undefined {
  const eq = text.indexOf("=");
  if (eq < 1) return undefined;
  const name = text.slice(0, eq).trim();
  const command = text.slice(eq + 1).trim();
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name) || command.length === 0) return undefined;
  return { name, command };
}

/**
 * The `mcpServers` config for one invocation: each upstream behind `raes mcp-gateway`, which reaches
 * the invocation's port on `socketPath` with the token in its own environment only.
 */
export function gatewayConfig(options: {
  readonly raes: readonly string[];
  readonly socketPath: string;
  readonly token: string;
  readonly mapPath: string;
  readonly upstreams: readonly McpUpstream[];
  readonly timeoutMs?: number;
  /** An OTLP/HTTP base URL each gateway exports its spans to. */
  readonly otlp?: string;
  /** The environment every gateway and upstream gets besides the token (PATH at least). */
  readonly env: Readonly<Record<string, string>>;
}): { readonly mcpServers: Record<string, McpServerEntry> } {
  const [command, ...prefix] = options.raes;
  const mcpServers: Record<string, McpServerEntry> = {};
  for (const upstream of options.upstreams) {
    mcpServers[upstream.name] = {
      command: command ?? "raes",
      args: [
        ...prefix,
        "mcp-gateway",
        "--port-socket",
        options.socketPath,
        "--map",
        options.mapPath,
        ...(options.timeoutMs === undefined ? [] : ["--timeout-ms", String(options.timeoutMs)]),
        ...(options.otlp === undefined ? [] : ["--otlp", options.otlp]),
        "--",
        "/bin/sh",
        "-c",
        upstream.command,
      ],
      env: { ...options.env, RAES_PORT_TOKEN: options.token },
    };
  }
  return { mcpServers };
}

/** Writes the config owner-only (it holds the invocation's port token), one value per line. */
export function writeGatewayConfig(path: string, config: ReturnType<typeof gatewayConfig>): void {
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

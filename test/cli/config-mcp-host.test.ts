import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type PortalService, startPortalService } from "../../src/demo/index.js";
import { ChildStdioTransport } from "../helpers/child-stdio.js";
import { ROOT } from "../helpers/example.js";

const run = promisify(execFile);
const MAIN = join(ROOT, "dist", "cli", "main.js");

interface ServerBlock {
  readonly type?: string;
  readonly command: string;
  readonly args: string[];
  readonly env?: Record<string, string>;
}

/** `raes config mcp-host` (the built CLI) run in `cwd` with paths relative to it. */
async function configFor(cwd: string, client: string, portal: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    [
      MAIN,
      "config",
      "mcp-host",
      "--client",
      client,
      "--scenario",
      "scenario.yaml",
      "--manifest",
      "manifest.json",
      "--map",
      "map.yaml",
      "--env",
      `DEMO_PORTAL_URL=${portal}`,
      "--",
      "node",
      "server.js",
    ],
    { cwd },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("raes config mcp-host", () => {
  let dir: string;
  let portal: PortalService;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-host-config-"));
    cpSync(
      join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml"),
      join(dir, "scenario.yaml"),
    );
    cpSync(join(ROOT, "examples", "harness-backend.manifest.json"), join(dir, "manifest.json"));
    cpSync(join(ROOT, "examples", "demo", "mcp-map.yaml"), join(dir, "map.yaml"));
    // The demo server, by a path relative to the directory the config is printed in.
    cpSync(
      join(ROOT, "dist", "demo", "server.js"),
      join(ROOT, "dist", "demo", "server-copy-for-config-test.js"),
    );
    portal = await startPortalService();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await portal.close();
  });

  it("prints a Claude Desktop block that, started from /, answers tools/list and runs a governed call", async () => {
    // Every path relative to the directory the config is printed in, as a user types them.
    const printed = await run(
      process.execPath,
      [
        MAIN,
        "config",
        "mcp-host",
        "--scenario",
        "examples/enterprise-participant-evidence-loop.sdl.yaml",
        "--manifest",
        "examples/harness-backend.manifest.json",
        "--map",
        "examples/demo/mcp-map.yaml",
        "--store",
        `sqlite:${join(dir, "control-plane.db")}`,
        "--env",
        `DEMO_PORTAL_URL=${portal.url}`,
        "--",
        "node",
        "dist/demo/server.js",
      ],
      { cwd: ROOT },
    );
    const block = JSON.parse(printed.stdout) as { mcpServers: { raes: ServerBlock } };
    const server = block.mcpServers.raes;
    assert.equal(server.command, process.execPath);
    assert.equal(server.args[0], MAIN);
    assert.equal(server.args.at(-1), join(ROOT, "dist", "demo", "server.js"));
    // As a host starts it: from its own working directory, with only the block's environment.
    const transport = new ChildStdioTransport(server.command, server.args, { ...server.env }, "/");
    const client = new Client({ name: "config-test", version: "1.0.0" });
    await client.connect(transport);
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ["probe_login", "query_customer_db"]);
    const call = await client.callTool({ name: "probe_login", arguments: {} });
    assert.notEqual(call.isError, true);
    await client.close();
    assert.equal(await transport.exited, 0);
    assert.ok(existsSync(join(dir, "control-plane.db")), "the store is where the config says, not under /");
  });

  it("names the real CLI when run through a global install's link, from /", async () => {
    // `npm install -g` and `npm link` put a link to dist/cli/main.js on PATH.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(MAIN, join(bin, "raes"));
    const { stdout } = await run(
      process.execPath,
      [
        join(bin, "raes"),
        "config",
        "mcp-host",
        "--scenario",
        join(dir, "scenario.yaml"),
        "--manifest",
        join(dir, "manifest.json"),
        "--map",
        join(dir, "map.yaml"),
        "--",
        "node",
        "server.js",
      ],
      { cwd: "/" },
    );
    const server = (JSON.parse(stdout) as { mcpServers: { raes: ServerBlock } }).mcpServers.raes;
    assert.equal(server.command, process.execPath);
    assert.equal(server.args[0], MAIN);
  });

  it("makes every path absolute and shapes the block for VS Code and Cursor", async () => {
    const vscode = (await configFor(dir, "vscode", portal.url)) as { servers: { raes: ServerBlock } };
    const server = vscode.servers.raes;
    assert.equal(server.type, "stdio");
    assert.deepEqual(server.args.slice(server.args.indexOf("--scenario"), server.args.indexOf("--") + 3), [
      "--scenario",
      join(dir, "scenario.yaml"),
      "--manifest",
      join(dir, "manifest.json"),
      "--map",
      join(dir, "map.yaml"),
      "--store",
      `sqlite:${join(dir, ".raes", "control-plane.db")}`,
      "--",
      process.execPath,
      // server.js does not exist in dir, so it stays as given.
      "server.js",
    ]);
    assert.deepEqual(server.env, { DEMO_PORTAL_URL: portal.url });
    const cursor = (await configFor(dir, "cursor", portal.url)) as { mcpServers: { raes: ServerBlock } };
    assert.equal(cursor.mcpServers.raes.type, undefined);
    assert.equal(cursor.mcpServers.raes.command, process.execPath);
  });
});

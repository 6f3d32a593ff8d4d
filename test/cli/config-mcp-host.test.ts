import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
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

/** `raes config mcp-host` (the built CLI) in `cwd` with `args`: its exit code, stdout and stderr. */
async function configRun(
  cwd: string,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, "config", "mcp-host", ...args], {
      cwd,
      ...(env === undefined ? {} : { env: { ...process.env, ...env } }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The scenario, manifest and map each test copies into its folder, by relative path, then `--`. */
const INPUTS = ["--scenario", "scenario.yaml", "--manifest", "manifest.json", "--map", "map.yaml", "--"];

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
  it("prints no block for a scenario, manifest or map host mode would refuse: their own codes, exit 2", async () => {
    const inputs = { scenario: "scenario.yaml", manifest: "manifest.json", map: "map.yaml" };
    const args = (given: Partial<typeof inputs>) => {
      const all = { ...inputs, ...given };
      return ["--scenario", all.scenario, "--manifest", all.manifest, "--map", all.map, "--", "node", "x.js"];
    };
    const unbound = join(dir, "unbound-map.yaml");
    writeFileSync(
      unbound,
      readFileSync(join(dir, "map.yaml"), "utf8").replaceAll(
        "participant.action-contract.",
        "participant.action-contract.not-bound-",
      ),
    );
    for (const [given, line] of [
      [
        { scenario: "nope.yaml" },
        /^nope\.yaml:1:1: error sdl\.file\.unreadable .*\nraes: cli\.scenario-invalid: /m,
      ],
      [
        { manifest: "nope.json" },
        /^nope\.json: error manifest\.file-unreadable .*\nraes: cli\.manifest-invalid: /m,
      ],
      [{ map: "my-map.yaml" }, /^my-map\.yaml:1:1: mcp-map\.unreadable: cannot read my-map\.yaml: ENOENT/m],
      [
        { map: unbound },
        /^raes: cli\.usage: map tool \w+: \S+ has no binding .* refused affordance_unbound$/m,
      ],
    ] as const) {
      const result = await configRun(dir, args(given));
      assert.equal(result.code, 2, `${JSON.stringify(given)}: ${result.stderr}`);
      assert.equal(result.stdout, "", "no block");
      assert.match(result.stderr, line);
    }
    const stranger = await configRun(dir, [...args({}).slice(0, 6), "--participant", "nobody", "--", "node"]);
    assert.equal(stranger.code, 2);
    assert.match(
      stranger.stderr,
      /^raes: cli\.usage: --participant nobody is not an autonomous participant/m,
    );
  });

  it("prints no block for an upstream command that is neither on PATH nor an executable file (exit 2)", async () => {
    const base = INPUTS;
    for (const [command, says] of [
      ["nosuchcmd-raes-test", "not found on PATH"],
      ["./no-such-server", "not an executable file"],
      ["./scenario.yaml", "not an executable file"],
    ] as const) {
      const result = await configRun(dir, [...base, command]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(
        result.stderr,
        new RegExp(
          `^raes: cli\\.upstream-command-not-found: the upstream command ${command.replaceAll(".", "\\.")} is ${says}`,
          "m",
        ),
      );
    }
    // A command on PATH is written as its absolute path: the host may start servers with another PATH.
    const sh = await configRun(dir, [...base, "sh", "-c", "true"]);
    assert.equal(sh.code, 0, sh.stderr);
    const server = (JSON.parse(sh.stdout) as { mcpServers: { raes: ServerBlock } }).mcpServers.raes;
    assert.ok(isAbsolute(server.args.at(-3) ?? ""), server.args.at(-3));
  });

  it("warns about each upstream argument that reads as a relative path and names no file here", async () => {
    const result = await configRun(dir, [
      ...INPUTS,
      "node",
      "my-mcp-server.js",
      "--port",
      "8080",
      "@modelcontextprotocol/server-everything",
      "https://example.test/x.js",
      "manifest.json",
      "lib/tools",
      "-m",
      "mcp_server_git.main",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const server = (JSON.parse(result.stdout) as { mcpServers: { raes: ServerBlock } }).mcpServers.raes;
    assert.deepEqual(server.args.slice(server.args.indexOf("--") + 1), [
      process.execPath,
      "my-mcp-server.js",
      "--port",
      "8080",
      "@modelcontextprotocol/server-everything",
      "https://example.test/x.js",
      join(dir, "manifest.json"),
      "lib/tools",
      "-m",
      "mcp_server_git.main",
    ]);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("warning"));
    assert.deepEqual(
      warnings.map((line) => /upstream argument (\S+) names no file in /.exec(line)?.[1]),
      ["my-mcp-server.js", "lib/tools"],
    );
    assert.match(warnings[0] ?? "", /the host resolves it from its own working directory/);
  });

  it("finds a command through a relative PATH entry and prints it absolute: the host starts elsewhere", async () => {
    const bin = join(dir, "tools-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "my-upstream"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const result = await configRun(dir, [...INPUTS, "my-upstream"], {
      PATH: `tools-bin${delimiter}${process.env.PATH ?? ""}`,
    });
    assert.equal(result.code, 0, result.stderr);
    const server = (JSON.parse(result.stdout) as { mcpServers: { raes: ServerBlock } }).mcpServers.raes;
    assert.equal(server.args.at(-1), join(bin, "my-upstream"));
  });

  it("--help says what it refuses and what it warns about", async () => {
    const { stdout } = await run(process.execPath, [MAIN, "config", "mcp-host", "--help"]);
    for (const said of [
      "cli.upstream-command-not-found",
      "cli.scenario-invalid",
      "cli.manifest-invalid",
      "not bound to it",
      "warning on stderr",
      "from its own working directory",
    ])
      assert.ok(stdout.includes(said), said);
  });
});

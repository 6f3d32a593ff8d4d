import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { ROOT } from "../helpers/example.js";

const MAP = join(ROOT, "test", "mcp", "fixtures", "map.yaml");

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function raes(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliNodeArgs(args), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `raes mcp-gateway` in host mode on the example scenario and manifest, its upstream `node -e CODE`. */
function hostMode(map: string, store: string, code: string): string[] {
  const examples = join(ROOT, "examples");
  return [
    "mcp-gateway",
    "--scenario",
    join(examples, "enterprise-participant-evidence-loop.sdl.yaml"),
    "--manifest",
    join(examples, "harness-backend.manifest.json"),
    "--map",
    map,
    "--store",
    store,
    "--",
    process.execPath,
    "-e",
    code,
  ];
}

describe("raes mcp-gateway command line", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-gwcli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("documents itself, its map file and its exit codes in --help", async () => {
    const { code, stdout } = await raes(["mcp-gateway", "--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /--port-socket <path>/);
    assert.match(stdout, /--map <file>/);
    assert.match(stdout, /--timeout-ms <ms>/);
    assert.match(stdout, /RAES_PORT_TOKEN/);
    assert.match(stdout, /Exit codes:/);
    assert.match(stdout, /tool_affordance:/);
    // Host mode exits 1 for a scenario or manifest with errors, 2 only for one it cannot read.
    const exits = stdout.slice(stdout.indexOf("Exit codes:"));
    const one = exits.slice(exits.indexOf("\n  1 "), exits.indexOf("\n  2 "));
    assert.match(one.replace(/\s+/g, " "), /scenario or manifest has errors/);
    assert.doesNotMatch(exits.slice(exits.indexOf("\n  2 ")), /manifest with errors/);
  });

  it("exits 2 on usage errors, writing nothing on stdout, the MCP channel", async () => {
    const badMap = join(dir, "bad.yaml");
    writeFileSync(badMap, "tools:\n  probe_login:\n    targets: []\n");
    const token = { RAES_PORT_TOKEN: "t" };
    const socket = join(dir, "none.sock");
    const cases = await Promise.all([
      raes(["mcp-gateway", "--map", MAP, "--", "node", "x.js"], token),
      raes(["mcp-gateway", "--port-socket", socket, "--", "node", "x.js"], token),
      raes(["mcp-gateway", "--port-socket", socket, "--map", MAP], token),
      raes(["mcp-gateway", "--port-socket", socket, "--map", MAP, "--timeout-ms", "0", "--", "node"], token),
      raes(["mcp-gateway", "--port-socket", socket, "--map", MAP, "--", "node", "x.js"]),
      raes(["mcp-gateway", "--port-socket", socket, "--map", badMap, "--", "node", "x.js"], token),
      raes(["mcp-gateway", "--port-socket", socket, "--map", join(dir, "missing.yaml"), "--", "node"], token),
    ]);
    for (const outcome of cases) {
      assert.equal(outcome.code, 2, outcome.stderr);
      assert.equal(outcome.stdout, "");
    }
    assert.match(cases[0]?.stderr ?? "", /--port-socket/);
    assert.match(cases[1]?.stderr ?? "", /--map/);
    assert.match(cases[2]?.stderr ?? "", /upstream/);
    assert.match(cases[3]?.stderr ?? "", /--timeout-ms/);
    assert.match(cases[4]?.stderr ?? "", /^raes: cli\.usage: RAES_PORT_TOKEN is not set/m);
    assert.match(
      cases[5]?.stderr ?? "",
      /bad\.yaml:2:3: mcp-map\.field-missing tools\.probe_login\.tool_affordance/,
    );
    assert.match(
      cases[5]?.stderr ?? "",
      /bad\.yaml:3:14: mcp-map\.field-invalid tools\.probe_login\.targets/,
    );
    assert.match(cases[6]?.stderr ?? "", /mcp-map\.unreadable/);
  });

  it("exits 1 when the port cannot be reached", async () => {
    const outcome = await raes(
      ["mcp-gateway", "--port-socket", join(dir, "none.sock"), "--map", MAP, "--", "node", "x.js"],
      { RAES_PORT_TOKEN: "t" },
    );
    assert.equal(outcome.code, 1);
    assert.equal(outcome.stdout, "");
    assert.match(outcome.stderr, /^raes: cli\.port-unreachable: cannot reach the tool-action port/m);
  });

  it("exits 1 with a coded line, not a schema dump, when the upstream answers initialize with something else", async () => {
    const upstream =
      'require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => ' +
      'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(l).id, result: { x: "aaa" } }) + "\\n"))';
    const outcome = await raes(hostMode(join(ROOT, "examples", "demo", "mcp-map.yaml"), "memory:", upstream));
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.equal(outcome.stdout, "");
    assert.match(
      outcome.stderr,
      /^raes: mcp-upstream\.answer-invalid: the gateway did not start: the upstream's answer to initialize is not what MCP specifies for it$/m,
    );
    assert.doesNotMatch(outcome.stderr, /invalid_type|expected/);
  });

  it("host mode prints a bad manifest's or scenario's findings, then one coded line, and serves nothing (exit 1; 2 for a file it cannot read), as raes run does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-gw-inputs-"));
    const manifest = join(dir, "bad.json");
    writeFileSync(manifest, "{");
    const args = hostMode(join(ROOT, "test", "fixtures", "live", "map.yaml"), "memory:", "");
    const badManifest = await raes(
      args.map((a) => (a.endsWith("harness-backend.manifest.json") ? manifest : a)),
    );
    assert.equal(badManifest.code, 1, badManifest.stderr);
    assert.equal(badManifest.stdout, "");
    // The whole file's finding has no path: one space between its code and its message.
    assert.match(badManifest.stderr, new RegExp(`^${manifest}: error manifest\\.invalid-json not JSON`, "m"));
    assert.match(
      badManifest.stderr,
      /^raes: cli\.manifest-invalid: .*bad\.json: the manifest has errors; nothing served$/m,
    );
    const scenario = join(dir, "bad.sdl.yaml");
    writeFileSync(scenario, "name: [");
    const badScenario = await raes(args.map((a) => (a.endsWith(".sdl.yaml") ? scenario : a)));
    assert.equal(badScenario.code, 1, badScenario.stderr);
    assert.match(
      badScenario.stderr,
      /^raes: cli\.scenario-invalid: .*bad\.sdl\.yaml: the scenario has errors; nothing served$/m,
    );
    const missing = await raes(args.map((a) => (a.endsWith(".sdl.yaml") ? join(dir, "nope.sdl.yaml") : a)));
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /nope\.sdl\.yaml:1:1: error sdl\.file\.unreadable /);
    assert.match(
      missing.stderr,
      /^raes: cli\.scenario-invalid: .*nope\.sdl\.yaml: the scenario has errors; nothing served$/m,
    );
  });

  it("host mode refuses a map that holds calls for approval on a memory: store, which no approve can reach (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-gw-memory-"));
    const map = join(dir, "held.yaml");
    writeFileSync(
      map,
      readFileSync(join(ROOT, "test", "fixtures", "live", "map.yaml"), "utf8").replace(
        "    evidence_refs: [content.participant-observation]\n",
        "    evidence_refs: [content.participant-observation]\n    approval: required\n",
      ),
    );
    const outcome = await raes(hostMode(map, "memory:", ""));
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(
      outcome.stderr,
      /^raes: cli\.usage: map tool echo holds calls for approval, decided from another process \(raes approve\), which cannot reach a memory: store/m,
    );
  });
});

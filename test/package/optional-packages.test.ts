import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OTLP_PACKAGES } from "../../src/cli/otlp.js";
import { ROOT } from "../helpers/example.js";
import { linkPackages, packInto, productionPackages } from "../helpers/packed.js";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};
const OPTIONAL = ["pg", ...Object.keys(OTLP_PACKAGES)];
const project = mkdtempSync(join(tmpdir(), "raes-optional-"));
let bin = "";

/** The installed bin, with every linked package resolving its imports inside the project's node_modules. */
function raes(args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--preserve-symlinks", bin, ...args], {
    cwd: project,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, NODE_OPTIONS: "--preserve-symlinks" },
  });
}

/**
 * The tarball installed the way `npm install raes-ts` lays it out when the optional peer dependencies
 * are left out: node_modules holds raes-ts and what its dependencies bring in, and nothing else.
 */
before(() => {
  const { installed } = packInto(project);
  linkPackages(project, productionPackages());
  bin = join(installed, "dist", "cli", "main.js");
});
after(() => rmSync(project, { recursive: true, force: true }));

describe("the optional packages", () => {
  it("are optional peer dependencies, installed in the repository as pinned devDependencies", () => {
    for (const name of OPTIONAL) {
      assert.equal(manifest.dependencies[name], undefined, name);
      assert.equal(manifest.peerDependenciesMeta[name]?.optional, true, name);
      const range = manifest.peerDependencies[name];
      assert.equal(range, `^${manifest.devDependencies[name]}`, name);
    }
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), [...OPTIONAL].sort());
    // The ranges --otlp's error tells a user to install are the peer ranges.
    for (const [name, range] of Object.entries(OTLP_PACKAGES))
      assert.equal(range, manifest.peerDependencies[name], name);
  });

  it("are absent from the install without them", () => {
    for (const name of OPTIONAL) assert.equal(existsSync(join(project, "node_modules", name)), false, name);
    for (const name of Object.keys(manifest.dependencies))
      assert.ok(existsSync(join(project, "node_modules", name)), name);
  });

  it("without pg, a postgres:// store fails with store.driver-missing, naming pg and how to install it", () => {
    const result = raes(["operations", "--store", "postgres://raes@127.0.0.1:5432/raes"]);
    assert.equal(result.status, 2, result.stderr);
    const line = result.stderr.trim();
    assert.match(line, /^raes: store\.driver-missing: a postgres:\/\/ store needs the PostgreSQL driver pg,/);
    const install = /run npm install "pg@([^"]+)"$/.exec(line);
    assert.equal(install?.[1], manifest.peerDependencies.pg, line);
    assert.equal(result.stdout, "");
  });

  it("without the OTLP exporter, raes run --otlp and raes mcp-gateway --otlp fail with cli.otlp-exporter-missing", () => {
    const E = join(project, "node_modules", "raes-ts", "examples");
    const install = Object.entries(manifest.peerDependencies)
      .filter(([name]) => name.startsWith("@opentelemetry/"))
      .map(([name, range]) => `"${name}@${range}"`)
      .join(" ");
    const run = raes([
      "run",
      join(E, "enterprise-participant-evidence-loop.sdl.yaml"),
      "--manifest",
      join(E, "harness-backend.manifest.json"),
      "--runtime",
      join(E, "demo", "harness-runtime.ts"),
      "--store",
      "sqlite:.raes/otlp.db",
      "--otlp",
      "http://127.0.0.1:1",
    ]);
    const gateway = raes([
      "mcp-gateway",
      "--port-socket",
      join(project, "no-port.sock"),
      "--map",
      join(E, "demo", "mcp-map.yaml"),
      "--otlp",
      "http://127.0.0.1:1",
      "--",
      "node",
      "-e",
      "0",
    ]);
    for (const result of [run, gateway]) {
      assert.equal(result.status, 2, result.stderr);
      assert.equal(
        result.stderr.trim(),
        "raes: cli.otlp-exporter-missing: --otlp needs the OpenTelemetry exporter, optional packages " +
          `that are not installed (@opentelemetry/exporter-trace-otlp-http): run npm install ${install}`,
      );
    }
    // Refused before the run began: no store was made.
    assert.equal(existsSync(join(project, ".raes", "otlp.db")), false);
  });

  it("without them, the demo runs: the SQLite store, the gateway, the MCP SDK and the timeline page", () => {
    const result = raes(["demo", "--json"]);
    // The demo's expected ending: a scheduler stops on the stalled call (exit 1, docs/guide/gateway.md).
    assert.equal(result.status, 1, result.stderr);
    const summary = JSON.parse(result.stdout) as {
      invocations: number;
      tool_actions: Record<string, number>;
      gateway_refusals: Record<string, number>;
    };
    assert.equal(summary.invocations, 2);
    assert.deepEqual(summary.tool_actions, { succeeded: 3, indeterminate: 1 });
    assert.deepEqual(summary.gateway_refusals, { tool_not_mapped: 1 });
    assert.ok(existsSync(join(project, ".raes", "demo.db")));
    assert.ok(existsSync(join(project, ".raes", "demo.html")));
  });
});

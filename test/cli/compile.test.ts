import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, toWireJson } from "../../src/compiler/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_PATH, editExample } from "../fixtures/scenarios/example.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";

function raes(...args: string[]) {
  const result = spawnSync(process.execPath, cliNodeArgs(args), { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function expectedJson(): string {
  const { scenario } = loadScenario(EXAMPLE_PATH);
  assert.ok(scenario);
  return `${toWireJson(compileScenario(scenario))}\n`;
}

describe("raes compile", () => {
  it("prints the wire JSON model by default, byte-identical to toWireJson", () => {
    const { status, stdout } = raes("compile", EXAMPLE_PATH);
    assert.equal(status, 0);
    assert.equal(stdout, expectedJson());
    const wire = JSON.parse(stdout);
    assert.equal(wire.affordance_bindings[0].target_addresses.length, 7);
  });

  it("accepts --json as the explicit default", () => {
    assert.equal(raes("compile", EXAMPLE_PATH, "--json").stdout, expectedJson());
  });

  it("writes the model with -o and prints nothing", () => {
    const out = join(mkdtempSync(join(tmpdir(), "raes-compile-")), "model.json");
    const { status, stdout } = raes("compile", EXAMPLE_PATH, "-o", out);
    assert.equal(status, 0);
    assert.equal(stdout, "");
    assert.equal(readFileSync(out, "utf8"), expectedJson());
  });

  it("prints a table of affordance bindings with --summary", () => {
    const { status, stdout } = raes("compile", EXAMPLE_PATH, "--summary");
    assert.equal(status, 0);
    assert.match(stdout, /1 affordance bindings/);
    assert.match(
      stdout,
      /^PARTICIPANT\s+TOOL AFFORDANCE\s+ACTION CONTRACT\s+OBSERVATION BOUNDARIES\s+TARGETS$/m,
    );
    assert.match(
      stdout,
      /^participant\.behavior\.participant-agent\s+participant\.behavior-specification\.participant-behavior\.tool-affordance\.portal-client\s+participant\.action-contract\.probe-customer-portal-login\s+participant\.observation-boundary\.participant-view\s+7$/m,
    );
    assert.match(stdout, /^ {2}provision\.content\.policy-decision-log$/m);
  });

  it("refuses an invalid scenario with its diagnostics on stderr and exit 1", () => {
    const path = join(mkdtempSync(join(tmpdir(), "raes-compile-")), "bad.yaml");
    writeFileSync(
      path,
      editExample([["      clock_ref: scenario-clock\n", "      clock_ref: missing-clock\n"]]),
    );
    const { status, stdout, stderr } = raes("compile", path);
    assert.equal(status, 1);
    assert.equal(stdout, "");
    assert.match(stderr, /error participant\.autonomous-clock-unbound /);
  });

  it("exits 2 for a file it cannot read and for a wrong command line", () => {
    const missing = raes("compile", "/nonexistent/scenario.yaml");
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /sdl\.file\.unreadable/);
    assert.equal(raes("compile").status, 2);
    const help = raes("compile", "--help");
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--summary/);
  });
});

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EXAMPLE_PATH, editExample } from "../fixtures/scenarios/example.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";

function raes(...args: string[]) {
  const result = spawnSync(process.execPath, cliNodeArgs(args), { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function scenarioFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "raes-validate-")), "scenario.yaml");
  writeFileSync(path, text);
  return path;
}

describe("raes validate", () => {
  it("accepts the example: exit 0, one warning line per uninterpreted section, file:line:col first", () => {
    const { status, stdout } = raes("validate", EXAMPLE_PATH);
    assert.equal(status, 0);
    const lines = stdout.trimEnd().split("\n");
    assert.equal(lines.at(-1), `${EXAMPLE_PATH}: ok (8 warnings)`);
    assert.match(lines[0] ?? "", /^.+\.sdl\.yaml:105:1: warning sdl\.section\.uninterpreted /);
  });

  it("reports errors as file:line:col: severity code message and exits 1", () => {
    const path = scenarioFile(
      editExample([["      max_action_attempts: 2\n", "      max_action_attempts: 0\n"]]),
    );
    const { status, stdout } = raes("validate", path);
    assert.equal(status, 1);
    assert.match(
      stdout,
      new RegExp(`^${path}:\\d+:28: error sdl\\.model\\.invalid 0 must be at least 1$`, "m"),
    );
    assert.match(stdout, /: 2 errors, 8 warnings\n$/);
  });

  it("prints {file, ok, diagnostics} with --json", () => {
    const path = scenarioFile(editExample([["version: '1.0'\n", "version: '1.0'\nversion: '2.0'\n"]]));
    const { status, stdout } = raes("validate", path, "--json");
    assert.equal(status, 1);
    const report = JSON.parse(stdout);
    assert.equal(report.file, path);
    assert.equal(report.ok, false);
    const errors = report.diagnostics.filter((d: { severity: string }) => d.severity === "error");
    assert.deepEqual(errors, [
      {
        code: "sdl.mapping_key_conflict",
        severity: "error",
        message: "duplicate mapping key 'version'",
        path: "/version",
        line: 3,
        column: 1,
        file: path,
      },
    ]);
  });

  it("exits 2 for a file it cannot read, missing or a directory alike (an input error, not a finding)", () => {
    const { status, stdout } = raes("validate", "/nonexistent/scenario.yaml");
    assert.equal(status, 2);
    assert.match(stdout, /^\/nonexistent\/scenario\.yaml:1:1: error sdl\.file\.unreadable /);
    assert.equal(raes("validate", "/nonexistent/scenario.yaml", "--json").status, 2);
    assert.equal(raes("validate", tmpdir()).status, 2);
  });

  it("counts one error and one warning in the singular", () => {
    const path = scenarioFile(editExample([["version: '1.0'\n", "version: '1.0'\nversion: '2.0'\n"]]));
    const { status, stdout } = raes("validate", path);
    assert.equal(status, 1);
    assert.match(stdout, /: 1 error, 8 warnings\n$/);
  });

  it("exits 2 only for a wrong command line, and documents itself with --help", () => {
    assert.equal(raes("validate").status, 2);
    assert.equal(raes("validate", EXAMPLE_PATH, "--bogus").status, 2);
    const help = raes("validate", "--help");
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: raes validate \[options\] <file>/);
  });
});

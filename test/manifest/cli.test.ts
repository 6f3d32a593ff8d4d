import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_MANIFEST_PATH, editedExample, MANIFEST_FIXTURES, ROOT } from "./fixtures.js";

const EXAMPLE_SCENARIO = join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml");
const scratch = mkdtempSync(join(tmpdir(), "raes-manifest-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function raes(...args: string[]) {
  const result = spawnSync(process.execPath, cliNodeArgs(args), {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeScratch(name: string, document: unknown): string {
  const path = join(scratch, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
}

describe("raes manifest check", () => {
  it("exits 0 and says ok for the example manifest", () => {
    const run = raes("manifest", "check", EXAMPLE_MANIFEST_PATH);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `${EXAMPLE_MANIFEST_PATH}: ok\n`);
  });

  it("exits 1 and prints file, severity, code, path and message for each finding", () => {
    const file = join(MANIFEST_FIXTURES, "claim-without-autonomous.manifest.json");
    const run = raes("manifest", "check", file);
    assert.equal(run.status, 1);
    assert.match(
      run.stdout,
      new RegExp(
        `^${file.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}: error manifest\\.claim-requires-autonomous-execution ` +
          "/participant_runtime/invocation_tool_actions \\S",
      ),
    );
    assert.equal(run.stdout.trim().split("\n").length, 1);
  });

  it("prints the check as JSON with --json", () => {
    const bad = raes(
      "manifest",
      "check",
      join(MANIFEST_FIXTURES, "claim-without-autonomous.manifest.json"),
      "--json",
    );
    assert.equal(bad.status, 1);
    const report = JSON.parse(bad.stdout);
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.diagnostics.map((d: { code: string; path: string }) => [d.code, d.path]),
      [["manifest.claim-requires-autonomous-execution", "/participant_runtime/invocation_tool_actions"]],
    );
    const good = raes("manifest", "check", EXAMPLE_MANIFEST_PATH, "--json");
    assert.equal(good.status, 0);
    assert.deepEqual(JSON.parse(good.stdout), { file: EXAMPLE_MANIFEST_PATH, ok: true, diagnostics: [] });
  });

  it("exits 2 for a file it cannot read (an input error) and 1 for text that is not JSON", () => {
    const missing = raes("manifest", "check", join(scratch, "absent.json"));
    assert.equal(missing.status, 2);
    assert.match(missing.stdout, /error manifest\.file-unreadable/);
    const notJson = raes("manifest", "check", join(MANIFEST_FIXTURES, "not-json.manifest.json"));
    assert.equal(notJson.status, 1);
    assert.match(notJson.stdout, /error manifest\.invalid-json \(document\)/);
  });

  it("exits 0 when there are only warnings", () => {
    const file = writeScratch(
      "warning.json",
      editedExample((m) =>
        m.participant_runtime.invocation_tool_actions.semantic_versions.push("vendor-tools/v9"),
      ),
    );
    const run = raes("manifest", "check", file);
    assert.equal(run.status, 0);
    assert.match(run.stdout, /warning manifest\.claim-version-unknown/);
  });

  it("exits 2 on a usage error", () => {
    assert.equal(raes("manifest", "check").status, 2);
    assert.equal(raes("manifest", "check", EXAMPLE_MANIFEST_PATH, "--no-such-option").status, 2);
  });

  it("documents its arguments in --help", () => {
    const run = raes("manifest", "check", "--help");
    assert.equal(run.status, 0);
    assert.match(run.stdout, /Usage: raes manifest check \[options\] <file>/);
    assert.match(run.stdout, /--scenario <file>/);
    assert.match(run.stdout, /--json/);
  });

  it("checks the example manifest clean against the example scenario", () => {
    const run = raes("manifest", "check", EXAMPLE_MANIFEST_PATH, "--scenario", EXAMPLE_SCENARIO);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /: ok\n$/);
  });

  it("reports a policy action without an offer against the scenario", () => {
    const file = writeScratch(
      "narrow-offer.json",
      editedExample((m) => m.participant_runtime.execution_bindings[0].target_addresses.pop()),
    );
    const run = raes("manifest", "check", file, "--scenario", EXAMPLE_SCENARIO, "--json");
    assert.equal(run.status, 1);
    const report = JSON.parse(run.stdout);
    assert.equal(report.scenario.compiled, true);
    assert.deepEqual(
      report.diagnostics.map((d: { code: string }) => d.code),
      ["manifest.policy-action-without-offer"],
    );
  });

  it("exits 1 when the scenario has errors, 2 when it cannot be read", () => {
    const broken = writeScratch("broken.sdl.yaml", "version: '1.0'\nversion: '2.0'\n");
    const run = raes("manifest", "check", EXAMPLE_MANIFEST_PATH, "--scenario", broken);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /scenario did not compile/);
    const missing = raes(
      "manifest",
      "check",
      EXAMPLE_MANIFEST_PATH,
      "--scenario",
      join(scratch, "absent.sdl.yaml"),
    );
    assert.equal(missing.status, 2);
    assert.match(missing.stdout, /scenario did not compile/);
  });
});

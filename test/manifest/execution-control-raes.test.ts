import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/manifest/index.js";
import { type Json, ROOT } from "./fixtures.js";

// RAES's verdicts, recorded by tools/record-raes-manifest-control.py: each example manifest read by RAES's
// manifest model with its execution-control keys left out, false, all six actions, or five.
const RAES = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "raes-control", "manifest-control.json"), "utf8"),
) as { cases: Record<string, { verdict: "valid" | "invalid"; messages?: string[] }> };
const FILES: Record<string, string> = {
  v1: "harness-backend.manifest.json",
  v2: "harness-backend-v2.manifest.json",
  v3: "harness-backend-v3.manifest.json",
};
const ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"];
const EDITS: Record<string, (runtime: Json) => void> = {
  "file-as-is": () => undefined,
  "without-execution-control": (rt) => {
    delete rt.supports_execution_control;
    delete rt.supported_execution_control_actions;
  },
  "execution-control-false": (rt) =>
    Object.assign(rt, { supports_execution_control: false, supported_execution_control_actions: [] }),
  "execution-control-all-actions": (rt) =>
    Object.assign(rt, { supports_execution_control: true, supported_execution_control_actions: ACTIONS }),
  "execution-control-without-teardown": (rt) =>
    Object.assign(rt, {
      supports_execution_control: true,
      supported_execution_control_actions: ACTIONS.slice(0, -1),
    }),
};
/**
 * RAES refuses an autonomous manifest without execution control (and without bounded concurrency,
 * max_execution_services and max_concurrent_actions, which the shared example manifests leave out too);
 * raes-ts accepts it and refuses each control instead (docs/raes-mapping.md, "Capability gate").
 */
const DEPARTURES = new Set(["file-as-is", "without-execution-control", "execution-control-false"]);

function manifest(version: string, edit: string): Json {
  const json = JSON.parse(readFileSync(join(ROOT, "examples", FILES[version] as string), "utf8")) as Json;
  EDITS[edit]?.(json.participant_runtime);
  return json;
}

describe("execution-control capabilities against RAES's manifest model", () => {
  it("the fixture covers every example and case", () => {
    assert.deepEqual(
      Object.keys(RAES.cases).sort(),
      Object.keys(FILES)
        .flatMap((v) => Object.keys(EDITS).map((e) => `${v}/${e}`))
        .sort(),
    );
  });

  for (const [name, raes] of Object.entries(RAES.cases)) {
    const [version = "", edit = ""] = name.split("/");
    it(`${name}: RAES says ${raes.verdict}${DEPARTURES.has(edit) ? " (a listed departure: raes-ts accepts)" : ""}`, () => {
      const check = checkManifest(manifest(version, edit));
      const errors = check.diagnostics.filter((d) => d.severity === "error");
      if (DEPARTURES.has(edit)) {
        assert.equal(raes.verdict, "invalid");
        assert.deepEqual(errors, []);
        return;
      }
      if (raes.verdict === "valid") return assert.deepEqual(errors, []);
      assert.deepEqual(
        errors.map((d) => [d.code, d.path]),
        [[Code.invalid_value, "/participant_runtime/supported_execution_control_actions"]],
      );
      // RAES's message, word for word (its model raises it with no code).
      assert.ok(raes.messages?.[0]?.endsWith(errors[0]?.message ?? "-"), raes.messages?.[0]);
    });
  }
});

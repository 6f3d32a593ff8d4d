import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ManifestDiagnosticCode as Code,
  checkManifest,
  checkManifestFile,
} from "../../src/manifest/index.js";
import { diagnosticCases } from "./diagnostic-cases.js";
import {
  EXAMPLE_MANIFEST_PATH,
  editedExample,
  error,
  exampleManifest,
  findings,
  fixtureManifest,
  MANIFEST_FIXTURES,
} from "./fixtures.js";

const RT = "/participant_runtime";

describe("checkManifest", () => {
  it("accepts the shipped example manifest with no diagnostics", async () => {
    const check = await checkManifestFile(EXAMPLE_MANIFEST_PATH);
    assert.deepEqual(check.diagnostics, []);
    assert.equal(check.ok, true);
    assert.equal(check.manifest?.participantRuntime.invocationToolActions?.maxToolActionsPerInvocation, 16);
    assert.equal(check.manifest?.participantRuntime.executionBindings[0]?.maxInFlight, 1);
  });

  it("accepts a manifest without autonomous execution or the claim", () => {
    const check = checkManifest(fixtureManifest("plain-runtime.manifest.json"));
    assert.deepEqual(findings(check), []);
    assert.equal(check.manifest?.participantRuntime.supportsAutonomousExecution, false);
    assert.equal(check.manifest?.participantRuntime.invocationToolActions, undefined);
  });

  it("tolerates the RAES capability fields it does not interpret", () => {
    const manifest = editedExample((m) => {
      Object.assign(m.participant_runtime, {
        supports_execution_control: true,
        supported_execution_control_actions: ["start", "pause", "resume", "drain", "reset", "teardown"],
        supports_bounded_concurrency: true,
        max_execution_services: 1,
        max_concurrent_actions: 4,
        max_autonomous_occurrences: null,
        resource_budgets: null,
        constraints: { note: "bounded" },
      });
      m.participant_runtime.feature_support[0].disclosure_refs = ["content.disclosure"];
      m.participant_runtime.execution_bindings[0].schema_version = "participant-execution-binding/v1";
    });
    assert.deepEqual(findings(checkManifest(manifest)), []);
  });

  it("refuses execution control without RAES's six actions, or with an unknown one, and reads time.supports_coordinated_participant_reset", () => {
    const missing = editedExample((m) => {
      m.participant_runtime.supports_execution_control = true;
      m.participant_runtime.supported_execution_control_actions = ["start", "pause"];
    });
    const check = checkManifest(missing);
    assert.equal(check.ok, false);
    assert.ok(
      check.diagnostics.some((d) =>
        d.message.includes("execution control is missing required actions: resume, drain, reset, teardown"),
      ),
    );
    const unknown = editedExample((m) => {
      m.participant_runtime.supported_execution_control_actions = ["start", "freeze"];
    });
    assert.ok(
      checkManifest(unknown).diagnostics.some((d) =>
        d.message.includes("unsupported execution control actions: freeze"),
      ),
    );
    const timed = editedExample((m) => {
      m.time = { name: "clock", supports_coordinated_participant_reset: true, supports_pause: true };
    });
    assert.deepEqual(checkManifest(timed).manifest?.time, { supportsCoordinatedParticipantReset: true });
    assert.equal(checkManifest(exampleManifest()).manifest?.time, undefined);
  });

  it("reads JSON text as well as a parsed value", () => {
    const text = JSON.stringify(exampleManifest());
    assert.deepEqual(checkManifest(text).manifest, checkManifest(exampleManifest()).manifest);
  });

  for (const testCase of diagnosticCases) {
    it(`reports ${testCase.expected.map((finding) => finding.code).join(" + ")} for ${testCase.name}`, () => {
      const check = checkManifest(testCase.manifest());
      assert.deepEqual(findings(check), testCase.expected);
      const hasError = testCase.expected.some((finding) => finding.severity === "error");
      assert.equal(check.ok, !hasError);
    });
  }

  it("collects every problem instead of stopping at the first", () => {
    const manifest = editedExample((m) => {
      m.extra = true;
      m.participant_runtime.execution_bindings[0].target_addresses = [];
      m.participant_runtime.execution_bindings[0].max_in_flight = 0;
      m.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 0;
    });
    assert.deepEqual(
      findings(checkManifest(manifest))
        .map((finding) => finding.code)
        .sort(),
      [
        Code.claim_limit_invalid,
        Code.offer_limit_invalid,
        Code.offer_targets_empty,
        Code.unknown_field,
      ].sort(),
    );
  });

  it("returns no parsed manifest when the shape is broken, but one when only rules fail", () => {
    const broken = checkManifest(editedExample((m) => delete m.participant_runtime.name));
    assert.equal(broken.manifest, undefined);
    assert.deepEqual(findings(broken), [error(Code.missing_field, `${RT}/name`)]);
    const ruleFailure = checkManifest(
      editedExample((m) => (m.participant_runtime.max_autonomous_in_flight = 0)),
    );
    assert.equal(ruleFailure.ok, false);
    assert.equal(ruleFailure.manifest?.participantRuntime.maxAutonomousInFlight, 0);
  });

  it("escapes JSON pointer segments", () => {
    const check = checkManifest(editedExample((m) => (m.participant_runtime["a/b~c"] = 1)));
    assert.deepEqual(findings(check), [error(Code.unknown_field, `${RT}/a~1b~0c`)]);
  });

  it("reports an unreadable file and text that is not JSON", async () => {
    const missing = await checkManifestFile(join(MANIFEST_FIXTURES, "does-not-exist.json"));
    assert.deepEqual(findings(missing), [error(Code.file_unreadable, "")]);
    const notJson = await checkManifestFile(join(MANIFEST_FIXTURES, "not-json.manifest.json"));
    assert.deepEqual(findings(notJson), [error(Code.invalid_json, "")]);
    assert.equal(notJson.manifest, undefined);
  });
});

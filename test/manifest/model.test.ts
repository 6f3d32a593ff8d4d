import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, type RuntimeModel } from "../../src/compiler/index.js";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/manifest/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import { ACTIVITY_CODES } from "./activity-cases.js";
import { BUDGET_CODES } from "./budget-cases.js";
import { diagnosticCases } from "./diagnostic-cases.js";
import { editedExample, error, exampleManifest, findings, ROOT } from "./fixtures.js";
import { modelDiagnosticCases } from "./model-cases.js";

const RT = "/participant_runtime";
const POLICY = "participant.autonomous-execution.participant-behavior";

function exampleModel(): RuntimeModel {
  const path = join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml");
  const { scenario, diagnostics } = loadScenario(path, { source: "path" });
  assert.deepEqual(
    diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
    [],
  );
  assert.ok(scenario);
  return compileScenario(scenario);
}

const model = exampleModel();

describe("checkManifest against the compiled example scenario", () => {
  it("accepts the example manifest with no diagnostics", () => {
    const check = checkManifest(exampleManifest(), model);
    assert.deepEqual(check.diagnostics, []);
    assert.equal(check.ok, true);
  });

  it("the example policy is the one the manifest's offer is written for", () => {
    const policy = model.autonomousPolicies[POLICY];
    assert.ok(policy);
    assert.deepEqual(
      policy.executionBindings.map((binding) => binding.actionContractAddress),
      ["participant.action-contract.probe-customer-portal-login"],
    );
  });

  for (const testCase of modelDiagnosticCases) {
    it(`reports ${testCase.expected.map((finding) => finding.code).join(" + ")} for ${testCase.name}`, () => {
      const check = checkManifest(testCase.manifest(), model);
      assert.deepEqual(findings(check), testCase.expected);
      assert.equal(check.ok, false);
    });
  }

  it("a v1 policy's attempts count as occurrences against a declared max_autonomous_occurrences (as RAES)", () => {
    const raes = JSON.parse(
      readFileSync(join(ROOT, "test", "fixtures", "raes-outcomes", "v1-manifest-limits.json"), "utf8"),
    ).answers as Record<string, unknown>;
    for (const [limit, refused] of [
      [1, true],
      [2, false],
    ] as const) {
      assert.equal((raes[`max_autonomous_occurrences=${limit}`] as unknown[]).length > 0, refused);
      const check = checkManifest(
        editedExample((m) => (m.participant_runtime.max_autonomous_occurrences = limit)),
        model,
      );
      assert.deepEqual(
        findings(check),
        refused ? [error(Code.activity_occurrences_exceeded, `${RT}/max_autonomous_occurrences`)] : [],
      );
    }
  });

  it("does not require an offer for tool actions when the manifest makes no claim", () => {
    const manifest = editedExample((m) => {
      delete m.participant_runtime.invocation_tool_actions;
      m.participant_runtime.execution_bindings[0].participant_implementation_ref = "other.v1";
    });
    assert.deepEqual(findings(checkManifest(manifest, model)), [
      error(Code.policy_action_without_offer, `${RT}/execution_bindings`),
    ]);
  });

  it("has a test case for every manifest diagnostic code", () => {
    const tested = new Set([
      Code.file_unreadable,
      // Tested with the other loaders' input limits in test/input/loaders.test.ts.
      Code.file_not_regular,
      Code.source_limit,
      Code.duplicate_key,
      // Tested with the other bounds in test/manifest/bounds.test.ts.
      Code.value_too_large,
      ...ACTIVITY_CODES,
      ...BUDGET_CODES,
      ...[...diagnosticCases, ...modelDiagnosticCases].flatMap((testCase) =>
        testCase.expected.map((f) => f.code),
      ),
    ]);
    assert.deepEqual(
      Object.values(Code).filter((code) => !tested.has(code)),
      [],
    );
  });
});

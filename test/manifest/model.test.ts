import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, type RuntimeModel } from "../../src/compiler/index.js";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/manifest/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import {
  editedExample,
  error,
  exampleManifest,
  findings,
  fixtureManifest,
  ROOT,
  warning,
} from "./fixtures.js";

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

  const cases = [
    {
      name: "a manifest without autonomous execution",
      manifest: () => fixtureManifest("plain-runtime.manifest.json"),
      expected: [error(Code.autonomous_execution_required, `${RT}/supports_autonomous_execution`)],
    },
    {
      name: "a selection strategy the manifest does not support",
      manifest: () =>
        editedExample(
          (m) => (m.participant_runtime.supported_autonomous_selection_strategies = ["weighted"]),
        ),
      expected: [
        error(Code.policy_capability_unsupported, `${RT}/supported_autonomous_selection_strategies`),
      ],
    },
    {
      name: "a policy target the manifest does not support",
      manifest: () => editedExample((m) => m.participant_runtime.supported_autonomous_target_addresses.pop()),
      expected: [
        error(Code.offer_target_unsupported, `${RT}/execution_bindings/0/target_addresses/6`),
        error(Code.policy_capability_unsupported, `${RT}/supported_autonomous_target_addresses`),
      ],
    },
    {
      name: "fewer attempts allowed than the policy needs",
      manifest: () => editedExample((m) => (m.participant_runtime.max_autonomous_action_attempts = 1)),
      expected: [error(Code.policy_limit_exceeded, `${RT}/max_autonomous_action_attempts`)],
    },
    {
      name: "an offer whose targets miss one of the policy's",
      manifest: () =>
        editedExample((m) => m.participant_runtime.execution_bindings[0].target_addresses.pop()),
      expected: [error(Code.policy_action_without_offer, `${RT}/execution_bindings`)],
    },
    {
      name: "an offer for another implementation (also leaving the tool action without an offer)",
      manifest: () =>
        editedExample(
          (m) => (m.participant_runtime.execution_bindings[0].participant_implementation_ref = "other.v1"),
        ),
      expected: [
        error(Code.policy_action_without_offer, `${RT}/execution_bindings`),
        error(Code.tool_action_without_offer, `${RT}/execution_bindings`),
      ],
    },
    {
      name: "two offers covering the policy action",
      manifest: () =>
        editedExample((m) => {
          const offers = m.participant_runtime.execution_bindings;
          offers.push({ ...offers[0], binding_id: "second-offer" });
        }),
      expected: [
        warning(Code.offers_overlap, `${RT}/execution_bindings/1`),
        error(Code.policy_action_ambiguous_offer, `${RT}/execution_bindings`),
      ],
    },
    {
      name: "an offer allowing fewer attempts than the policy",
      manifest: () =>
        editedExample((m) => (m.participant_runtime.execution_bindings[0].max_action_attempts = 1)),
      expected: [error(Code.offer_limits_below_policy, `${RT}/execution_bindings/0`)],
    },
  ];

  for (const testCase of cases) {
    it(`reports ${testCase.expected.map((finding) => finding.code).join(" + ")} for ${testCase.name}`, () => {
      const check = checkManifest(testCase.manifest(), model);
      assert.deepEqual(findings(check), testCase.expected);
      assert.equal(check.ok, false);
    });
  }

  it("does not require an offer for tool actions when the manifest makes no claim", () => {
    const manifest = editedExample((m) => {
      delete m.participant_runtime.invocation_tool_actions;
      m.participant_runtime.execution_bindings[0].participant_implementation_ref = "other.v1";
    });
    assert.deepEqual(findings(checkManifest(manifest, model)), [
      error(Code.policy_action_without_offer, `${RT}/execution_bindings`),
    ]);
  });
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ManifestDiagnosticCode as Code,
  checkManifest,
  checkManifestFile,
} from "../../src/manifest/index.js";
import {
  EXAMPLE_MANIFEST_PATH,
  editedExample,
  error,
  exampleManifest,
  findings,
  fixtureManifest,
  type Json,
  MANIFEST_FIXTURES,
  warning,
} from "./fixtures.js";

const RT = "/participant_runtime";
const OFFER = `${RT}/execution_bindings/0`;
const CLAIM = `${RT}/invocation_tool_actions`;

interface Case {
  readonly name: string;
  readonly manifest: () => unknown;
  readonly expected: readonly { code: string; path: string; severity: string }[];
}

function plainWith(edit: (manifest: Json) => void): Json {
  const manifest = fixtureManifest("plain-runtime.manifest.json");
  edit(manifest);
  return manifest;
}

const cases: readonly Case[] = [
  {
    name: "invalid JSON text",
    manifest: () => '{"schema_version": ',
    expected: [error(Code.invalid_json, "")],
  },
  {
    name: "a document that is not an object",
    manifest: () => [],
    expected: [error(Code.wrong_type, "")],
  },
  {
    name: "an unknown field inside an offer, such as tool arguments",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].tool_arguments = {})),
    expected: [error(Code.unknown_field, `${OFFER}/tool_arguments`)],
  },
  {
    name: "an unknown top-level field",
    manifest: () => editedExample((m) => (m.capabilities = {})),
    expected: [error(Code.unknown_field, "/capabilities")],
  },
  {
    name: "a missing offer field",
    manifest: () => editedExample((m) => delete m.participant_runtime.execution_bindings[0].max_retries),
    expected: [error(Code.missing_field, `${OFFER}/max_retries`)],
  },
  {
    name: "a boolean given as a string",
    manifest: () => editedExample((m) => (m.participant_runtime.supports_autonomous_execution = "yes")),
    expected: [error(Code.wrong_type, `${RT}/supports_autonomous_execution`)],
  },
  {
    name: "a non-string target",
    manifest: () =>
      editedExample((m) => (m.participant_runtime.execution_bindings[0].target_addresses[2] = 7)),
    expected: [error(Code.wrong_type, `${OFFER}/target_addresses/2`)],
  },
  {
    name: "a support level outside RAES's scale",
    manifest: () => editedExample((m) => (m.participant_runtime.feature_support[1].support_level = "total")),
    expected: [error(Code.invalid_value, `${RT}/feature_support/1/support_level`)],
  },
  {
    name: "an unknown selection strategy",
    manifest: () =>
      editedExample((m) => m.participant_runtime.supported_autonomous_selection_strategies.push("random")),
    expected: [error(Code.invalid_value, `${RT}/supported_autonomous_selection_strategies/1`)],
  },
  {
    name: "another schema version",
    manifest: () => editedExample((m) => (m.schema_version = "backend-manifest/v2")),
    expected: [error(Code.schema_version_unsupported, "/schema_version")],
  },
  {
    name: "a repeated role",
    manifest: () => editedExample((m) => m.participant_runtime.supported_participant_roles.push("green")),
    expected: [error(Code.duplicate_value, `${RT}/supported_participant_roles/1`)],
  },
  {
    name: "a supported boundary that is not a compiled address",
    manifest: () =>
      editedExample(
        (m) => (m.participant_runtime.supported_autonomous_observation_boundaries = ["Participant View"]),
      ),
    expected: [error(Code.address_invalid, `${RT}/supported_autonomous_observation_boundaries/0`)],
  },
  {
    name: "a zero runtime limit",
    manifest: () => editedExample((m) => (m.participant_runtime.max_autonomous_in_flight = 0)),
    expected: [error(Code.limit_invalid, `${RT}/max_autonomous_in_flight`)],
  },
  {
    name: "a supported feature declared unsupported",
    manifest: () =>
      editedExample((m) =>
        m.participant_runtime.feature_support.push({
          feature: "behavior_history",
          support_level: "unsupported",
        }),
      ),
    expected: [error(Code.feature_support_conflict, `${RT}/feature_support/2/support_level`)],
  },
  {
    name: "autonomous support without the autonomous_execution feature",
    manifest: () =>
      editedExample((m) => {
        const features: string[] = m.participant_runtime.supported_behavior_features;
        m.participant_runtime.supported_behavior_features = features.filter(
          (f) => f !== "autonomous_execution",
        );
      }),
    expected: [error(Code.autonomous_flag_mismatch, `${RT}/supports_autonomous_execution`)],
  },
  {
    name: "autonomous support without a participant limit",
    manifest: () => editedExample((m) => delete m.participant_runtime.max_autonomous_participants),
    expected: [error(Code.autonomous_config_incomplete, `${RT}/max_autonomous_participants`)],
  },
  {
    name: "an autonomous list without autonomous support",
    manifest: () =>
      plainWith((m) => (m.participant_runtime.supported_autonomous_selection_strategies = ["ordered_cycle"])),
    expected: [
      error(Code.autonomous_config_without_support, `${RT}/supported_autonomous_selection_strategies`),
    ],
  },
  {
    name: "the claim without autonomous support",
    manifest: () => fixtureManifest("claim-without-autonomous.manifest.json"),
    expected: [error(Code.claim_requires_autonomous_execution, CLAIM)],
  },
  {
    name: "the claim with tool_affordances unsupported",
    manifest: () =>
      editedExample((m) => {
        m.participant_runtime.feature_support[1].support_level = "unsupported";
        const features: string[] = m.participant_runtime.supported_behavior_features;
        m.participant_runtime.supported_behavior_features = features.filter((f) => f !== "tool_affordances");
      }),
    expected: [error(Code.claim_tool_affordances_unsupported, CLAIM)],
  },
  {
    name: "the claim with no tool_affordances support level at all",
    manifest: () => editedExample((m) => m.participant_runtime.feature_support.pop()),
    expected: [error(Code.claim_tool_affordances_unsupported, CLAIM)],
  },
  {
    name: "the claim without the v1 semantic version",
    manifest: () =>
      editedExample(
        (m) =>
          (m.participant_runtime.invocation_tool_actions.semantic_versions = [
            "participant-invocation-tool-actions/v2",
          ]),
      ),
    expected: [
      error(Code.claim_version_missing, `${CLAIM}/semantic_versions`),
      warning(Code.claim_version_unknown, `${CLAIM}/semantic_versions/0`),
    ],
  },
  {
    name: "the claim with an extra unknown semantic version",
    manifest: () =>
      editedExample((m) =>
        m.participant_runtime.invocation_tool_actions.semantic_versions.push("vendor-tools/v9"),
      ),
    expected: [warning(Code.claim_version_unknown, `${CLAIM}/semantic_versions/1`)],
  },
  {
    name: "a zero claim limit",
    manifest: () =>
      editedExample(
        (m) => (m.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 0),
      ),
    expected: [error(Code.claim_limit_invalid, `${CLAIM}/max_tool_actions_per_invocation`)],
  },
  {
    name: "a fractional claim limit",
    manifest: () =>
      editedExample(
        (m) =>
          (m.participant_runtime.invocation_tool_actions.max_concurrent_tool_actions_per_invocation = 1.5),
      ),
    expected: [error(Code.claim_limit_invalid, `${CLAIM}/max_concurrent_tool_actions_per_invocation`)],
  },
  {
    name: "a concurrent claim limit above the total",
    manifest: () =>
      editedExample(
        (m) => (m.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 2),
      ),
    expected: [
      error(Code.claim_concurrency_exceeds_total, `${CLAIM}/max_concurrent_tool_actions_per_invocation`),
    ],
  },
  {
    name: "an offer without targets",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].target_addresses = [])),
    expected: [error(Code.offer_targets_empty, `${OFFER}/target_addresses`)],
  },
  {
    name: "an offer without evidence refs",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].evidence_refs = [])),
    expected: [error(Code.offer_refs_empty, `${OFFER}/evidence_refs`)],
  },
  {
    name: "an offer with zero in flight",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].max_in_flight = 0)),
    expected: [error(Code.offer_limit_invalid, `${OFFER}/max_in_flight`)],
  },
  {
    name: "an offer with negative retries",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].max_retries = -1)),
    expected: [error(Code.offer_limit_invalid, `${OFFER}/max_retries`)],
  },
  {
    name: "an offer whose in-flight limit exceeds the claim's concurrent limit",
    manifest: () => editedExample((m) => (m.participant_runtime.execution_bindings[0].max_in_flight = 5)),
    expected: [error(Code.offer_exceeds_concurrency, `${OFFER}/max_in_flight`)],
  },
  {
    name: "an offer whose in-flight limit exceeds RAES's max_concurrent_actions",
    manifest: () =>
      editedExample((m) => {
        m.participant_runtime.max_concurrent_actions = 2;
        m.participant_runtime.execution_bindings[0].max_in_flight = 3;
      }),
    expected: [error(Code.offer_exceeds_concurrency, `${OFFER}/max_in_flight`)],
  },
  {
    name: "an offer for an action not declared supported",
    manifest: () =>
      editedExample(
        (m) =>
          (m.participant_runtime.execution_bindings[0].action_contract_address =
            "participant.action-contract.other"),
      ),
    expected: [error(Code.offer_action_unsupported, `${OFFER}/action_contract_address`)],
  },
  {
    name: "an offer target not declared supported",
    manifest: () =>
      editedExample((m) =>
        m.participant_runtime.execution_bindings[0].target_addresses.push("provision.node.elsewhere"),
      ),
    expected: [error(Code.offer_target_unsupported, `${OFFER}/target_addresses/7`)],
  },
  {
    name: "two offers that overlap on targets",
    manifest: () =>
      editedExample((m) => {
        const offers = m.participant_runtime.execution_bindings;
        offers.push({
          ...offers[0],
          binding_id: "second-offer",
          target_addresses: offers[0].target_addresses.slice(0, 1),
        });
      }),
    expected: [warning(Code.offers_overlap, `${RT}/execution_bindings/1`)],
  },
  {
    name: "two offers with the same binding id",
    manifest: () =>
      editedExample((m) => {
        const offers = m.participant_runtime.execution_bindings;
        offers.push({ ...offers[0], participant_implementation_ref: "other-implementation" });
      }),
    expected: [error(Code.duplicate_value, `${RT}/execution_bindings/1/binding_id`)],
  },
];

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

  it("reads JSON text as well as a parsed value", () => {
    const text = JSON.stringify(exampleManifest());
    assert.deepEqual(checkManifest(text).manifest, checkManifest(exampleManifest()).manifest);
  });

  for (const testCase of cases) {
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

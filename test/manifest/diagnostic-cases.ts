import { ManifestDiagnosticCode as Code } from "../../src/manifest/index.js";
import { editedExample, error, fixtureManifest, type Json, warning } from "./fixtures.js";

const RT = "/participant_runtime";
const OFFER = `${RT}/execution_bindings/0`;
const CLAIM = `${RT}/invocation_tool_actions`;

/** One manifest edit and exactly the findings it must produce. */
export interface DiagnosticCase {
  readonly name: string;
  readonly manifest: () => unknown;
  readonly expected: readonly { code: string; path: string; severity: string }[];
}

function plainWith(edit: (manifest: Json) => void): Json {
  const manifest = fixtureManifest("plain-runtime.manifest.json");
  edit(manifest);
  return manifest;
}

/** One case or more per manifest-only diagnostic code. */
export const diagnosticCases: readonly DiagnosticCase[] = [
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
    name: "a semantic version listed twice",
    manifest: () =>
      editedExample((m) =>
        m.participant_runtime.invocation_tool_actions.semantic_versions.push(
          "participant-invocation-tool-actions/v1",
        ),
      ),
    expected: [error(Code.duplicate_value, `${CLAIM}/semantic_versions/1`)],
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

import { ManifestDiagnosticCode as Code } from "../../src/manifest/index.js";
import type { DiagnosticCase } from "./diagnostic-cases.js";
import { editedExample, error, fixtureManifest, warning } from "./fixtures.js";

const RT = "/participant_runtime";

/** One case per diagnostic code that needs the compiled example model. */
export const modelDiagnosticCases: readonly DiagnosticCase[] = [
  {
    name: "a manifest without autonomous execution",
    manifest: () => fixtureManifest("plain-runtime.manifest.json"),
    expected: [error(Code.autonomous_execution_required, `${RT}/supports_autonomous_execution`)],
  },
  {
    name: "a selection strategy the manifest does not support",
    manifest: () =>
      editedExample((m) => (m.participant_runtime.supported_autonomous_selection_strategies = ["weighted"])),
    expected: [error(Code.policy_capability_unsupported, `${RT}/supported_autonomous_selection_strategies`)],
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
    // RAES: "autonomous occurrences require 2, backend limit is 1" (raes-outcomes/v1-manifest-limits.json).
    name: "a declared occurrence limit below a v1 policy's attempts (RAES checks it for every policy)",
    manifest: () => editedExample((m) => (m.participant_runtime.max_autonomous_occurrences = 1)),
    expected: [error(Code.activity_occurrences_exceeded, `${RT}/max_autonomous_occurrences`)],
  },
  {
    name: "an offer whose targets miss one of the policy's",
    manifest: () => editedExample((m) => m.participant_runtime.execution_bindings[0].target_addresses.pop()),
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

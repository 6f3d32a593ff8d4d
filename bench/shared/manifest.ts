/**
 * A backend manifest that admits a generated scenario (scenario.ts): one execution
 * binding per policy binding, the composition claimed, limits sized to the scenario.
 */
import type { RuntimeModel } from "../../src/index.js";

/** The manifest JSON for `model`; `inFlight` is `max_autonomous_in_flight`. */
export function generatedManifest(model: RuntimeModel, inFlight = 4): Record<string, unknown> {
  const policies = Object.values(model.autonomousPolicies);
  // One offer per action contract: offers that overlap would make every tool request ambiguous.
  const first = new Map(
    policies
      .flatMap((p) => p.executionBindings)
      .map((b) => [b.actionContractAddress, b] as const)
      .reverse(),
  );
  const bindings = [...first.values()].map((binding) => ({
    binding_id: binding.bindingId,
    action_contract_address: binding.actionContractAddress,
    target_addresses: binding.targetAddresses,
    participant_implementation_ref: binding.participantImplementationRef,
    constraint_refs: ["constraint.generated"],
    evidence_refs: ["content.evidence-1"],
    max_action_attempts: 100_000,
    max_in_flight: 2,
    timeout_seconds: 30,
    max_retries: 0,
  }));
  const unique = (values: readonly string[]) => [...new Set(values)];
  return {
    schema_version: "backend-manifest/v1",
    name: "generated-bench-backend",
    version: "1.0.0",
    participant_runtime: {
      name: "generated-bench-runtime",
      supported_participant_roles: ["green"],
      supported_behavior_features: [
        "action_contracts",
        "autonomous_execution",
        "behavior_history",
        "observation_boundaries",
        "temporal_contracts",
        "tool_affordances",
      ],
      supported_interaction_features: ["shared_state_change"],
      feature_support: [
        { feature: "autonomous_execution", support_level: "exact" },
        { feature: "tool_affordances", support_level: "exact" },
      ],
      supports_autonomous_execution: true,
      supported_autonomous_selection_strategies: ["ordered_cycle"],
      supported_autonomous_policy_profiles: ["participant-autonomous-execution/v1"],
      supported_autonomous_action_contracts: unique(bindings.map((b) => b.action_contract_address)),
      supported_autonomous_observation_boundaries: unique(policies.map((p) => p.observationBoundaryAddress)),
      supported_autonomous_target_addresses: unique(bindings.flatMap((b) => b.target_addresses)),
      max_autonomous_participants: Object.keys(model.participants).length,
      max_autonomous_action_attempts: 100_000,
      max_autonomous_in_flight: inFlight,
      execution_bindings: bindings,
      invocation_tool_actions: {
        semantic_versions: ["participant-invocation-tool-actions/v1"],
        max_tool_actions_per_invocation: 4,
        max_concurrent_tool_actions_per_invocation: 2,
      },
    },
  };
}

/** The fixed codes of backend-manifest diagnostics. */
export const ManifestDiagnosticCode = {
  /** The manifest file could not be read. */
  file_unreadable: "manifest.file-unreadable",
  /** The manifest path names a FIFO, device, directory or socket, which is never read. */
  file_not_regular: "manifest.file-not-regular",
  /** The manifest is larger than 1 MB or nested deeper than 64 levels. */
  source_limit: "manifest.source-limit",
  /** The manifest text is not JSON. */
  invalid_json: "manifest.invalid-json",
  /** An object in the manifest JSON has the same key twice (as the YAML loaders refuse). */
  duplicate_key: "manifest.duplicate-key",
  /** A key that neither this format nor RAES defines at that place. */
  unknown_field: "manifest.unknown-field",
  /** A required field is absent. */
  missing_field: "manifest.missing-field",
  /** A value has the wrong JSON type. */
  wrong_type: "manifest.wrong-type",
  /** A value is empty or outside its closed vocabulary. */
  invalid_value: "manifest.invalid-value",
  /** `schema_version` is not `backend-manifest/v1`. */
  schema_version_unsupported: "manifest.schema-version-unsupported",
  /** A list that must hold unique values repeats one. */
  duplicate_value: "manifest.duplicate-value",
  /** A value that must be a RAES compiled address is not one. */
  address_invalid: "manifest.address-invalid",
  /** A capability limit is not an integer within its range. */
  limit_invalid: "manifest.limit-invalid",
  /** A feature is declared supported while its `feature_support` level is `unsupported`. */
  feature_support_conflict: "manifest.feature-support-conflict",
  /** `supports_autonomous_execution` and the `autonomous_execution` behavior feature disagree. */
  autonomous_flag_mismatch: "manifest.autonomous-flag-mismatch",
  /** Autonomous execution is supported but its strategies, profiles, actions, boundaries, limits or offers are missing. */
  autonomous_config_incomplete: "manifest.autonomous-config-incomplete",
  /** Autonomous lists, limits or offers are declared without autonomous execution support. */
  autonomous_config_without_support: "manifest.autonomous-config-without-support",
  /** The `invocation_tool_actions` claim is made without autonomous execution support. */
  claim_requires_autonomous_execution: "manifest.claim-requires-autonomous-execution",
  /** The claim is made while `tool_affordances` is `unsupported` or has no `feature_support` entry. */
  claim_tool_affordances_unsupported: "manifest.claim-tool-affordances-unsupported",
  /** The claim's `semantic_versions` lacks `participant-invocation-tool-actions/v1`. */
  claim_version_missing: "manifest.claim-version-missing",
  /** The claim lists a semantic version this runtime does not know; it is ignored. */
  claim_version_unknown: "manifest.claim-version-unknown",
  /** A claim limit is not an integer ≥ 1. */
  claim_limit_invalid: "manifest.claim-limit-invalid",
  /** The claim's concurrent limit exceeds its total limit. */
  claim_concurrency_exceeds_total: "manifest.claim-concurrency-exceeds-total",
  /** An execution-binding offer has no target addresses. */
  offer_targets_empty: "manifest.offer-targets-empty",
  /** An execution-binding offer has no constraint refs or no evidence refs. */
  offer_refs_empty: "manifest.offer-refs-empty",
  /** An offer limit is not an integer ≥ 1 (`max_retries`: ≥ 0). */
  offer_limit_invalid: "manifest.offer-limit-invalid",
  /** An offer's `max_in_flight` exceeds the claim's concurrent limit or `max_concurrent_actions`. */
  offer_exceeds_concurrency: "manifest.offer-exceeds-concurrency",
  /** An offer's action contract is not in `supported_autonomous_action_contracts`. */
  offer_action_unsupported: "manifest.offer-action-unsupported",
  /** An offer target is not in `supported_autonomous_target_addresses`. */
  offer_target_unsupported: "manifest.offer-target-unsupported",
  /** Two offers for the same action and implementation share targets, so a request may match both. */
  offers_overlap: "manifest.offers-overlap",
  /** A manifest or model value given already parsed is larger or deeper than a 1 MB manifest file can be. */
  value_too_large: "manifest.value-too-large",
  /** The scenario has autonomous policies but the manifest does not support autonomous execution. */
  autonomous_execution_required: "manifest.autonomous-execution-required",
  /** A policy needs a strategy, profile, action, boundary or target the manifest does not list as supported. */
  policy_capability_unsupported: "manifest.policy-capability-unsupported",
  /** A policy needs more participants, attempts or in-flight actions than the manifest's limits. */
  policy_limit_exceeded: "manifest.policy-limit-exceeded",
  /** No offer covers an autonomous policy action for the policy's implementation and targets. */
  policy_action_without_offer: "manifest.policy-action-without-offer",
  /** More than one offer covers an autonomous policy action. */
  policy_action_ambiguous_offer: "manifest.policy-action-ambiguous-offer",
  /** The offer covering a policy action allows fewer attempts or in-flight actions than the policy. */
  offer_limits_below_policy: "manifest.offer-limits-below-policy",
  /** With the claim, a tool affordance action has no offer for the implementation that would call it. */
  tool_action_without_offer: "manifest.tool-action-without-offer",
  /** A v2 policy's profile is not in `supported_autonomous_policy_profiles`. */
  activity_profile_unsupported: "manifest.activity-profile-unsupported",
  /** A v2 policy needs `weighted` in `supported_autonomous_selection_strategies`. */
  activity_weighted_unsupported: "manifest.activity-weighted-unsupported",
  /** A governed activity feature is missing from `supported_autonomous_activity_features`. */
  activity_feature_unsupported: "manifest.activity-feature-unsupported",
  /** `blake3-xof-participant-v1` is missing from `supported_autonomous_random_stream_profiles`. */
  activity_random_stream_unsupported: "manifest.activity-random-stream-unsupported",
  /** `max_autonomous_occurrences` is absent or below a v2 policy's `max_occurrences`. */
  activity_occurrences_exceeded: "manifest.activity-occurrences-exceeded",
  /** `max_autonomous_retries_per_occurrence` is absent or below a v2 candidate's `max_retries`. */
  activity_retries_exceeded: "manifest.activity-retries-exceeded",
  /** `max_autonomous_burst_size` is absent or below a v2 policy's `max_burst_size`. */
  activity_burst_exceeded: "manifest.activity-burst-exceeded",
  /** A v3 policy needs `resource_budgets` and the manifest declares none. */
  resource_budgets_required: "manifest.resource-budgets-required",
  /** `resource_budgets.support_strength` is neither `bounded` nor `exact`. */
  resource_budget_support_weak: "manifest.resource-budget-support-weak",
  /**
   * `resource_budgets.realization_contract_ids` lacks the budget state or event contract, or the manifest's
   * `supported_contract_versions` lacks one of RAES's four resource-budget contracts.
   */
  resource_budget_contract_missing: "manifest.resource-budget-contract-missing",
  /** A v3 policy's fairness policy, owner kind, resource kind, accounting mode or reset mode is not declared supported. */
  resource_budget_value_unsupported: "manifest.resource-budget-value-unsupported",
  /** Child budgets' limits sum above their parent's. */
  resource_budget_parent_overcommitted: "manifest.resource-budget-parent-overcommitted",
  /** No configured pool matches a budget exactly (pool, owner, kind, unit, accounting mode, meter). */
  resource_budget_pool_missing: "manifest.resource-budget-pool-missing",
  /** Two budgets of one policy use the same configured pool. */
  resource_budget_pool_aliased: "manifest.resource-budget-pool-aliased",
  /** A pool's capacity is below a budget's limit, or below the sum of the limits of every policy on it. */
  resource_budget_capacity_exceeded: "manifest.resource-budget-capacity-exceeded",
  /** A pool's fairness (policy, priority class, borrowing, reclaim, queue and starvation bounds) does not meet the policy's. */
  resource_budget_fairness_mismatch: "manifest.resource-budget-fairness-mismatch",
  /** A protected policy's budget has less protected pool capacity than it needs. */
  resource_budget_protected_capacity_missing: "manifest.resource-budget-protected-capacity-missing",
} as const;
/** A backend-manifest diagnostic code. */
export type ManifestDiagnosticCode = (typeof ManifestDiagnosticCode)[keyof typeof ManifestDiagnosticCode];

/** How serious a manifest diagnostic is. */
export const ManifestSeverity = {
  /** The manifest must not be used. */
  error: "error",
  /** The manifest is usable, but something is likely unintended. */
  warning: "warning",
} as const;
/** A manifest diagnostic severity. */
export type ManifestSeverity = (typeof ManifestSeverity)[keyof typeof ManifestSeverity];

/** The fixed codes a participant-runtime registration can be refused with. */
export const RegistrationErrorCode = {
  /** The runtime does not offer the contract the manifest declares (RAES `registry.target-contract-mismatch`). */
  target_contract_mismatch: "registry.target-contract-mismatch",
} as const;
/** A registration refusal code. */
export type RegistrationErrorCode = (typeof RegistrationErrorCode)[keyof typeof RegistrationErrorCode];

/** The only manifest schema this runtime reads. */
export const BACKEND_MANIFEST_SCHEMA = "backend-manifest/v1";

/** The schema tag an execution-binding offer may carry. */
export const EXECUTION_BINDING_SCHEMA = "participant-execution-binding/v1";

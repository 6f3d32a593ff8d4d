import { textDigest } from "../records/index.js";
import type { CompiledAutonomousPolicy, RuntimeModel } from "./model.js";
import { toWireValue } from "./wire.js";

/** RAES's fields of each record its policy digest resolves (the raes-ts-only fields are left out). */
const CLOCK_FIELDS = [
  "address",
  "time_domain_address",
  "authority_kind",
  "authority_ref",
  "monotonicity",
  "supports_pause",
  "supports_reset",
  "supports_jump",
  "description",
] as const;
const DOMAIN_FIELDS = [
  "address",
  "kind",
  "tick_period_numerator",
  "tick_period_denominator",
  "epoch",
  "visibility",
  "description",
] as const;
const PROGRESSION_FIELDS = [
  "address",
  "clock_address",
  "advancement_mode",
  "pacing_numerator",
  "pacing_denominator",
  "synchronization_mode",
  "step_ticks",
  "drift_bound_ticks",
  "reset_behavior",
  "replay_behavior",
  "description",
] as const;
const CONSTRAINT_FIELDS = [
  "address",
  "kind",
  "clock_address",
  "subject_addresses",
  "start_tick",
  "start_microstep",
  "end_tick",
  "end_microstep",
  "duration_ticks",
  "cadence_ticks",
  "description",
] as const;
const BINDING_FIELDS = [
  "action_contract_address",
  "target_addresses",
  "participant_implementation_ref",
  "max_action_attempts",
  "max_in_flight",
] as const;
const POLICY_FIELDS = [
  "address",
  "participant_addresses",
  "participant_implementation_ref",
  "clock_address",
  "progression_policy_address",
  "temporal_constraint_addresses",
  "action_contract_addresses",
  "target_addresses",
  "observation_boundary_address",
  "selection_strategy",
  "max_action_attempts",
  "max_in_flight",
  "failure_policy",
  "evaluation_authority_mode",
  "objective_refs",
  "proof_producer_refs",
  "score_authority_refs",
  "receipt_authority_refs",
] as const;
const ACTIVITY_FIELDS = [
  "profile",
  "work_window_addresses",
  "pause_window_addresses",
  "stochastic_control_ref",
  "timing_minimum_ticks",
  "timing_maximum_ticks",
  "outside_window_disposition",
  "empty_eligible_disposition",
  "action_candidate_ids",
  "action_candidate_weights",
  "action_candidate_dependencies",
  "action_candidate_retry_failure_classes",
  "action_candidate_max_retries",
  "action_candidate_cooldown_ticks",
  "max_occurrences",
  "max_burst_size",
] as const;
const RESOURCE_FIELDS = ["resource_owners", "resource_demands", "resource_fairness"] as const;

type Wire = Readonly<Record<string, unknown>>;

/** The wire form of the model's record at `address` in `records`, if it has one (its own key, never a prototype's). */
function wireRecord(records: Readonly<Record<string, unknown>>, address: string): Wire | undefined {
  return Object.hasOwn(records, address) ? (toWireValue(records[address]) as Wire) : undefined;
}

function pick(record: Wire | undefined, fields: readonly string[]): Wire {
  return Object.fromEntries(fields.map((field) => [field, record?.[field] ?? null]));
}

/** JSON with sorted keys, no spaces and every character outside ASCII escaped, as Python's `json.dumps(sort_keys=True, separators=(",", ":"))`. */
function pythonCanonicalJson(value: unknown): string {
  const sorted = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sorted);
    if (item !== null && typeof item === "object") {
      const keys = Object.keys(item).sort();
      return Object.fromEntries(keys.map((key) => [key, sorted((item as Wire)[key])]));
    }
    return item;
  };
  return JSON.stringify(sorted(value)).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * RAES's exact policy digest (`sha256:<hex>`): the policy's identity fields with its clock, time domain,
 * progression policy and constraints resolved, as RAES keeps it in the scheduler state. Reopening a run
 * whose stored digest differs is a changed policy (docs/raes-mapping.md).
 */
export function policyDigest(model: RuntimeModel, policy: CompiledAutonomousPolicy): string {
  // Only the records the digest resolves go to wire form: the whole model's would cost every
  // participant's records once per policy digest, a square of the participants at open.
  const own = wireRecord(model.autonomousPolicies, policy.address);
  const clock = wireRecord(model.clocks, policy.clockAddress);
  const domain = wireRecord(model.timeDomains, String(clock?.time_domain_address ?? ""));
  const constraints = [...new Set(policy.temporalConstraintAddresses)]
    .map((address) => [address, wireRecord(model.temporalConstraints, address)] as const)
    .filter(([, constraint]) => constraint !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, constraint]) => pick(constraint, CONSTRAINT_FIELDS));
  const bindings = (own?.execution_bindings as readonly Wire[] | undefined) ?? [];
  const payload: Record<string, unknown> = {
    ...pick(own, POLICY_FIELDS),
    execution_bindings: bindings.map((binding) => pick(binding, BINDING_FIELDS)),
    resolved_clock: pick(clock, CLOCK_FIELDS),
    resolved_time_domain: pick(domain, DOMAIN_FIELDS),
    resolved_progression_policy: pick(
      wireRecord(model.progressionPolicies, policy.progressionPolicyAddress),
      PROGRESSION_FIELDS,
    ),
    resolved_temporal_constraints: constraints,
  };
  if (policy.profile !== "participant-autonomous-execution/v1")
    Object.assign(payload, pick(own, ACTIVITY_FIELDS));
  if (policy.profile === "participant-autonomous-execution/v3")
    Object.assign(payload, pick(own, RESOURCE_FIELDS));
  return textDigest(pythonCanonicalJson(payload));
}

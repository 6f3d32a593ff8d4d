import { DiagnosticCode } from "./codes.js";
import type { Infer, Shape } from "./shape.js";
import { choice, integer, list, opaque, record, text } from "./shape.js";
import { optional, required, struct, variant, withDefault } from "./struct.js";

const prose = () => text({ nonEmpty: true });
const refs = () => list(prose(), { unique: true });
const limit = (max: number) => integer({ min: 1, max, limitCode: DiagnosticCode.autonomousLimitInvalid });

/** The autonomous execution profiles RAES defines; v1 is the default. */
export const AutonomousProfile = {
  /** Fixed-cadence `ordered_cycle` over `action_order`; the only profile the reference scheduler runs. */
  v1: "participant-autonomous-execution/v1",
  /** Weighted activity within work windows. */
  v2: "participant-autonomous-execution/v2",
  /** v2 plus scoped multi-resource budgets. */
  v3: "participant-autonomous-execution/v3",
} as const;
/** An autonomous execution profile. */
export type AutonomousProfile = (typeof AutonomousProfile)[keyof typeof AutonomousProfile];

const evaluationAuthority = struct(
  {
    mode: required(choice(["none", "declared"])),
    objective_refs: withDefault(refs(), []),
    proof_producer_refs: withDefault(refs(), []),
    score_authority_refs: withDefault(refs(), []),
    receipt_authority_refs: withDefault(refs(), []),
  },
  [
    (authority, fail) => {
      const any =
        authority.objective_refs.length +
          authority.proof_producer_refs.length +
          authority.score_authority_refs.length +
          authority.receipt_authority_refs.length >
        0;
      if (authority.mode === "none" && any)
        fail("evaluation authority mode 'none' cannot carry authority refs");
      if (authority.mode === "declared" && !any)
        fail("evaluation authority mode 'declared' needs an authority ref");
    },
  ],
);

const commonPolicy = {
  participant_implementation_ref: required(prose()),
  clock_ref: required(prose()),
  progression_policy_ref: required(prose()),
  observation_boundary_ref: required(prose()),
  max_action_attempts: required(limit(1_000_000)),
  max_in_flight: withDefault(limit(1024), 1),
  failure_policy: withDefault(choice(["continue", "stop"]), "stop"),
  evaluation_authority: required(evaluationAuthority),
};

const v1Policy = struct({
  profile: withDefault(choice([AutonomousProfile.v1]), AutonomousProfile.v1),
  ...commonPolicy,
  temporal_constraint_refs: required(list(prose(), { unique: true, minItems: 1 })),
  action_order: required(list(prose(), { unique: true, minItems: 1 })),
  selection_strategy: withDefault(choice(["ordered_cycle"]), "ordered_cycle"),
});

const activityCandidate = struct({
  action_ref: required(prose()),
  weight: required(integer({ min: 1, max: 1_000_000_000 })),
  depends_on: withDefault(refs(), []),
  retryable_failure_classes: withDefault(refs(), []),
  max_retries: withDefault(integer({ min: 0, max: 1024 }), 0),
  cooldown_ticks: withDefault(integer({ min: 0, max: 1_000_000_000 }), 0),
});

const activityFields = {
  ...commonPolicy,
  work_window_refs: required(list(prose(), { unique: true, minItems: 1 })),
  pause_window_refs: withDefault(list(prose(), { unique: true }), []),
  stochastic_control_ref: required(prose()),
  selection_strategy: required(choice(["weighted"])),
  timing: required(
    struct(
      {
        minimum_ticks: required(integer({ min: 1, max: 1_000_000_000 })),
        maximum_ticks: required(integer({ min: 1, max: 1_000_000_000 })),
      },
      [
        (timing, fail) =>
          timing.maximum_ticks < timing.minimum_ticks && fail("maximum_ticks is below minimum_ticks"),
      ],
    ),
  ),
  outside_window_disposition: required(choice(["next_opening", "skip"])),
  empty_eligible_disposition: required(choice(["complete", "wait"])),
  action_candidates: required(record(activityCandidate)),
  max_occurrences: required(limit(1_000_000)),
  max_burst_size: withDefault(limit(1024), 1),
};

const v2Policy = struct({ profile: required(choice([AutonomousProfile.v2])), ...activityFields });
const v3Policy = struct({
  profile: required(choice([AutonomousProfile.v3])),
  ...activityFields,
  resource_budget: required(opaque()),
});

/** A v1 autonomous execution policy. */
export type AutonomousPolicyV1 = Infer<typeof v1Policy>;
/** A v2 autonomous execution policy. */
export type AutonomousPolicyV2 = Infer<typeof v2Policy>;
/** A v3 autonomous execution policy. */
export type AutonomousPolicyV3 = Infer<typeof v3Policy>;
/** An autonomous execution policy of any profile. */
export type AutonomousPolicy = AutonomousPolicyV1 | AutonomousPolicyV2 | AutonomousPolicyV3;

const autonomousPolicy: Shape<AutonomousPolicy> = variant<AutonomousPolicy>(
  "profile",
  AutonomousProfile.v1,
  { [AutonomousProfile.v1]: v1Policy, [AutonomousProfile.v2]: v2Policy, [AutonomousProfile.v3]: v3Policy },
  DiagnosticCode.autonomousProfileUnknown,
);

const toolAffordance = struct({
  tool_ref: optional(prose()),
  action_contract_refs: required(list(prose(), { unique: true, minItems: 1 })),
  observation_boundary_refs: required(list(prose(), { unique: true, minItems: 1 })),
});

/** A behavior specification (`behavior_specifications.<name>`). */
export const behaviorSpecificationShape = struct(
  {
    semantic_version: required(prose()),
    lifecycle_state: withDefault(choice(["draft", "active", "deprecated"]), "active"),
    participant_refs: withDefault(refs(), []),
    participant_role_refs: withDefault(refs(), []),
    action_contract_refs: withDefault(refs(), []),
    observation_boundary_refs: withDefault(refs(), []),
    outcome_interpretation_rule_refs: withDefault(refs(), []),
    authority_scope_refs: withDefault(refs(), []),
    behavior_mode: optional(prose()),
    autonomous_execution: optional(autonomousPolicy),
    mixed_control: optional(opaque()),
    ai_offensive_behavior_refs: withDefault(refs(), []),
    defensive_behavior_refs: withDefault(refs(), []),
    offensive_behavior_refs: withDefault(refs(), []),
    realization_profile_ref: optional(prose()),
    backend_feature_support_refs: withDefault(refs(), []),
    evidence_contract_refs: withDefault(refs(), []),
    tool_affordances: withDefault(record(toolAffordance), {}),
    participant_inject_deliveries: optional(opaque()),
    extension_policy: withDefault(choice(["closed", "governed-extension"]), "governed-extension"),
    extensions: optional(opaque()),
  },
  [
    (spec, fail) => {
      if (spec.participant_refs.length === 0 && spec.participant_role_refs.length === 0) {
        fail("a behavior specification needs participant_refs or participant_role_refs");
      }
    },
  ],
);

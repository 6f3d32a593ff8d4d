import { DiagnosticCode } from "../codes.js";
import { FAILURE_CLASSES } from "./actions.js";
import { checkConcurrencyProjection, resourceBudgetShape } from "./budget.js";
import { mixedControlShape } from "./mixed-control.js";
import type { Infer, Shape } from "./shape.js";
import { choice, integer, list, opaque, record, text } from "./shape.js";
import { optional, reportNoncanonical, required, struct, variant, withDefault } from "./struct.js";

const prose = () => text({ nonEmpty: true });
const refs = () => list(prose(), { unique: true });
const limit = (max: number) => integer({ min: 1, max });

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

const activityCandidate = struct(
  {
    action_ref: required(prose()),
    weight: required(integer({ min: 1, max: 1_000_000_000 })),
    depends_on: withDefault(list(text({ identifier: true }), { unique: true }), []),
    retryable_failure_classes: withDefault(list(choice(FAILURE_CLASSES), { unique: true }), []),
    max_retries: withDefault(integer({ min: 0, max: 1024 }), 0),
    cooldown_ticks: withDefault(integer({ min: 0, max: 1_000_000_000 }), 0),
  },
  [
    (candidate, fail) => {
      if (candidate.retryable_failure_classes.length > 0 !== candidate.max_retries > 0) {
        fail("retryable_failure_classes and max_retries must be declared together", "max_retries");
      }
    },
  ],
);

type Candidates = Readonly<Record<string, { readonly depends_on: readonly string[] }>>;

/** RAES's candidate graph: dependencies name declared candidates, form no cycle, and leave an initial candidate. */
function checkCandidateGraph(
  candidates: Candidates,
  fail: (message: string, ...path: string[]) => void,
): void {
  const ids = Object.keys(candidates);
  for (const id of ids) {
    for (const dependency of candidates[id]?.depends_on ?? []) {
      if (!Object.hasOwn(candidates, dependency)) {
        fail(`dependency '${dependency}' names no declared candidate`, "action_candidates", id, "depends_on");
      }
    }
  }
  const state = new Map<string, "visiting" | "done">();
  let cyclic = false;
  const visit = (id: string): void => {
    const seen = state.get(id);
    if (seen === "done" || cyclic) return;
    if (seen === "visiting") {
      cyclic = true;
      return;
    }
    state.set(id, "visiting");
    for (const dependency of candidates[id]?.depends_on ?? [])
      if (Object.hasOwn(candidates, dependency)) visit(dependency);
    state.set(id, "done");
  };
  for (const id of ids) visit(id);
  if (cyclic) fail("the candidate dependency graph must be acyclic", "action_candidates");
  else if (ids.length > 0 && ids.every((id) => (candidates[id]?.depends_on.length ?? 0) > 0)) {
    fail("the candidate dependency graph must admit an initial candidate", "action_candidates");
  }
}

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
  action_candidates: required(record(activityCandidate, { noncanonical: reportNoncanonical, minEntries: 1 })),
  max_occurrences: required(limit(1_000_000)),
  max_burst_size: withDefault(limit(1024), 1),
};

/** RAES's activity bounds: occurrences within attempts, bursts within occurrences, and the candidate graph. */
const activityRules = [
  (
    policy: {
      readonly action_candidates: Candidates;
      readonly max_occurrences: number;
      readonly max_action_attempts: number;
      readonly max_burst_size: number;
    },
    fail: (message: string, ...path: string[]) => void,
  ) => {
    checkCandidateGraph(policy.action_candidates, fail);
    if (policy.max_occurrences > policy.max_action_attempts) {
      fail("max_occurrences cannot exceed max_action_attempts", "max_occurrences");
    }
    if (policy.max_burst_size > policy.max_occurrences) {
      fail("max_burst_size cannot exceed max_occurrences", "max_burst_size");
    }
  },
];

const v2Policy = struct(
  { profile: required(choice([AutonomousProfile.v2])), ...activityFields },
  activityRules,
);
const v3Policy = struct(
  {
    profile: required(choice([AutonomousProfile.v3])),
    ...activityFields,
    resource_budget: required(resourceBudgetShape),
  },
  [...activityRules, checkConcurrencyProjection],
);

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
  DiagnosticCode.modelInvalid,
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
    mixed_control: optional(mixedControlShape),
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
      if (spec.extensions !== undefined && spec.extension_policy !== "governed-extension") {
        fail("extensions require extension_policy governed-extension", "extensions");
      }
    },
  ],
);

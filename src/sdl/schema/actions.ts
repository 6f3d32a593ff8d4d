import { list, opaque, text } from "./shape.js";
import { optional, required, struct, withDefault } from "./struct.js";

const refs = () => list(text({ nonEmpty: true }), { unique: true });
const entries = () => list(text({ nonEmpty: true }), { unique: true });
const prose = () => text({ nonEmpty: true });

/** RAES's portable failure classes. */
export const FAILURE_CLASSES = [
  "precondition_unsatisfied",
  "unsupported_action",
  "target_unavailable",
  "authority_denied",
  "resource_exhausted",
  "timeout",
  "interrupted",
  "contention_lost",
  "partial_success",
  "unsafe_withheld",
  "backend_error",
  "unknown",
] as const;

const precondition = struct({
  precondition_id: required(prose()),
  precondition_class: required(
    text({
      oneOf: [
        "authority",
        "capability",
        "target",
        "knowledge",
        "resource",
        "temporal",
        "interaction",
        "realization",
      ],
    }),
  ),
  description: required(prose()),
  support_refs: withDefault(refs(), []),
  evidence_refs: withDefault(refs(), []),
});

const EFFECT_CLASSES = [
  "intended_effect",
  "side_effect",
  "observation_effect",
  "visibility_effect",
  "detection_effect",
  "evidence_effect",
  "no_effect",
  "unknown_effect",
] as const;

const effect = struct(
  {
    effect_id: required(prose()),
    effect_class: required(text({ oneOf: EFFECT_CLASSES })),
    description: required(prose()),
    target_refs: withDefault(refs(), []),
    evidence_refs: withDefault(refs(), []),
  },
  [
    (value, fail) => {
      const exempt = value.effect_class === "no_effect" || value.effect_class === "unknown_effect";
      if (!exempt && value.target_refs.length === 0 && value.evidence_refs.length === 0) {
        fail(`${value.effect_class} effects need target_refs or evidence_refs`);
      }
    },
  ],
);

const failureMapping = struct({
  backend_error_code: required(prose()),
  failure_class: required(text({ oneOf: FAILURE_CLASSES })),
  diagnostic: required(prose()),
});

const interaction = struct(
  {
    interaction_class: required(
      text({ oneOf: ["coordination", "contention", "interference", "shared_state_change"] }),
    ),
    target: required(prose()),
    rationale: required(prose()),
    related_actions: withDefault(list(prose()), []),
    shared_state_refs: withDefault(list(prose()), []),
  },
  [
    (value, fail) => {
      const needsRelated =
        value.interaction_class === "coordination" || value.interaction_class === "interference";
      if (needsRelated && value.related_actions.length === 0) {
        fail(`${value.interaction_class} interactions need related_actions`);
      }
      if (!needsRelated && value.shared_state_refs.length === 0) {
        fail(`${value.interaction_class} interactions need shared_state_refs`);
      }
    },
  ],
);

const externalMapping = struct({
  system: required(prose()),
  identifier: required(prose()),
  loss_label: required(prose()),
  rationale: required(prose()),
});

const temporalContract = struct({
  temporal_id: required(prose()),
  temporal_kind: required(
    text({
      oneOf: ["schedule", "cadence", "deadline", "dwell", "latency", "time_window", "timeout", "cooldown"],
    }),
  ),
  time_domain: required(
    text({ oneOf: ["episode_step", "scenario_time", "simulation_time", "backend_time", "wall_clock_time"] }),
  ),
  clock_authority: required(prose()),
  event_points: required(list(prose(), { unique: true, minItems: 1 })),
  description: required(prose()),
  window_ref: optional(prose()),
  duration_ref: optional(prose()),
  reset_boundary: optional(prose()),
  replay_boundary: optional(prose()),
  randomization_basis: optional(prose()),
  ordering_basis: required(prose()),
  backend_disclosure_refs: withDefault(refs(), []),
});

const timingDisclosure = struct({
  disclosure_id: required(prose()),
  disclosure_kind: required(
    text({ oneOf: ["pacing", "dilation", "synchronization", "serialization", "unsupported_guarantee"] }),
  ),
  support_mode: required(text({ oneOf: ["exact", "bounded", "disclosed_limitation", "unsupported"] })),
  description: required(prose()),
  affected_temporal_ids: required(list(prose(), { unique: true, minItems: 1 })),
  limitations: withDefault(entries(), []),
});

function uniqueIds<T>(items: readonly T[], id: (item: T) => string): string | undefined {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(id(item))) return id(item);
    seen.add(id(item));
  }
  return undefined;
}

/** A participant action contract (`action_contracts.<name>`). */
export const actionContractShape = struct(
  {
    semantic_version: required(prose()),
    lifecycle_state: withDefault(text({ oneOf: ["draft", "active", "deprecated"] }), "active"),
    behavioral_granularity: required(text({ oneOf: ["atomic", "procedure", "aggregate"] })),
    procedure_basis: required(prose()),
    realization_profile: required(prose()),
    fidelity_claim: required(prose()),
    arguments: optional(opaque()),
    preconditions: required(list(precondition, { minItems: 1 })),
    effects: required(list(effect, { minItems: 1 })),
    state_transition_effects: withDefault(entries(), []),
    observation_expectations: withDefault(entries(), []),
    evidence_expectations: withDefault(entries(), []),
    failure_classes: required(list(text({ oneOf: FAILURE_CLASSES }), { unique: true, minItems: 1 })),
    backend_failure_mappings: withDefault(list(failureMapping), []),
    interactions: withDefault(list(interaction), []),
    external_mappings: withDefault(list(externalMapping), []),
    temporal_contracts: withDefault(list(temporalContract), []),
    backend_timing_disclosures: withDefault(list(timingDisclosure), []),
  },
  [
    (value, fail) => {
      const repeatedPrecondition = uniqueIds(value.preconditions, (item) => item.precondition_id);
      if (repeatedPrecondition)
        fail(`precondition_id '${repeatedPrecondition}' is repeated`, "preconditions");
      const repeatedEffect = uniqueIds(value.effects, (item) => item.effect_id);
      if (repeatedEffect) fail(`effect_id '${repeatedEffect}' is repeated`, "effects");
      const repeatedCode = uniqueIds(value.backend_failure_mappings, (item) => item.backend_error_code);
      if (repeatedCode) fail(`backend_error_code '${repeatedCode}' is repeated`, "backend_failure_mappings");
      value.backend_failure_mappings.forEach((mapping, index) => {
        if (!value.failure_classes.includes(mapping.failure_class)) {
          const message = `failure_class '${mapping.failure_class}' is not among the contract's failure_classes`;
          fail(message, "backend_failure_mappings", index, "failure_class");
        }
      });
      if (value.backend_timing_disclosures.length > 0 && value.temporal_contracts.length === 0) {
        fail("backend_timing_disclosures need temporal_contracts", "backend_timing_disclosures");
      }
    },
  ],
);

/** An agent (`agents.<name>`): a role-neutral participant. */
export const agentShape = struct({
  entity: required(text({ nonEmpty: true })),
  description: withDefault(text(), ""),
  actions: withDefault(list(text({ nonEmpty: true }), { dedupe: true }), []),
  starting_accounts: withDefault(list(text()), []),
  initial_knowledge: optional(
    struct({
      hosts: withDefault(list(text()), []),
      subnets: withDefault(list(text()), []),
      services: withDefault(list(text()), []),
      accounts: withDefault(list(text()), []),
    }),
  ),
  allowed_subnets: withDefault(list(text()), []),
  starting_assertions: withDefault(list(text()), []),
  authority_anchors: withDefault(list(text()), []),
  operating_scope: withDefault(list(text()), []),
  observation_boundaries: withDefault(list(text({ nonEmpty: true }), { dedupe: true }), []),
  interactive_access: optional(opaque()),
});

/** Fixed diagnostic codes. `sdl.*` and `participant.*` codes are RAES's where RAES has one. */
export const DiagnosticCode = {
  /** The file could not be read. */
  fileUnreadable: "sdl.file.unreadable",
  /** The text is not well-formed YAML (or is empty, or holds several documents). */
  parse: "sdl.parse",
  /** The input exceeds the byte, alias or expanded-node limit. */
  sourceLimit: "sdl.source_limit",
  /** An alias refers to a node that contains it. */
  aliasCycle: "sdl.alias_cycle",
  /** An explicit YAML tag (`!!str`, `!foo`) was authored. */
  explicitTag: "sdl.explicit_tag",
  /** A mapping key appears twice in the same mapping. */
  mappingKeyConflict: "sdl.mapping_key_conflict",
  /** A mapping key is not a plain string. */
  mappingKeyType: "sdl.mapping_key_type",
  /** A declared name is not a portable identifier (`[a-z0-9][a-z0-9_-]{0,63}`). */
  identifierInvalid: "sdl.identifier.invalid",
  /** A key that the closed shape of an interpreted section does not define. */
  unknownField: "sdl.model.unknown-field",
  /** A value has the wrong YAML type. */
  wrongType: "sdl.model.type",
  /** A required field is missing. */
  required: "sdl.model.required",
  /** A value has the right type but is not allowed (enum, range, emptiness, cross-field rule). */
  invalidValue: "sdl.model.value",
  /** A list that must hold unique entries repeats one. */
  duplicateItem: "sdl.model.duplicate-item",
  /** A RAES top-level section raes-ts keeps but does not interpret. */
  sectionUninterpreted: "sdl.section.uninterpreted",
  /** A ref with no more specific code (content target, operating scope, authority anchor) names nothing declared. */
  refUnbound: "sdl.ref.unbound",

  /** An agent's `entity` names no declared entity. */
  agentEntityUnbound: "participant.agent-entity-unbound",
  /** An agent action names no declared action contract. */
  actionContractUnbound: "participant.action-contract-unbound",
  /** An agent observation boundary names no declared boundary. */
  observationBoundaryUnbound: "participant.observation-boundary-unbound",
  /** An action-contract target or support ref has a `nodes.`/`content.` form but names nothing declared. */
  actionTargetUnaddressable: "participant.action-target-unaddressable",
  /** An interaction's related action names no declared action contract. */
  interactionActionUnbound: "participant.interaction-action-unbound",
  /** A view rule classifies a ref the boundary does not declare. */
  viewRuleRefUnbound: "participant.view-rule-ref-unbound",
  /** A view rule cites evidence the boundary does not declare. */
  viewRuleEvidenceUnbound: "participant.view-rule-evidence-unbound",
  /** A view transition moves a ref the boundary does not declare. */
  viewTransitionRefUnbound: "participant.view-transition-ref-unbound",
  /** A view transition cites evidence the boundary does not declare. */
  viewTransitionEvidenceUnbound: "participant.view-transition-evidence-unbound",
  /** A behavior specification names an undeclared participant. */
  specParticipantUnbound: "participant.behavior-spec-participant-unbound",
  /** A behavior specification names a role no entity has. */
  specRoleUnbound: "participant.behavior-spec-role-unbound",
  /** A behavior specification names an undeclared action contract. */
  specActionUnbound: "participant.behavior-spec-action-unbound",
  /** A behavior specification names an undeclared observation boundary. */
  specBoundaryUnbound: "participant.behavior-spec-observation-boundary-unbound",
  /** A behavior specification names an undeclared outcome interpretation rule. */
  specOutcomeRuleUnbound: "participant.behavior-spec-outcome-rule-unbound",

  /** Two affordances of one specification declare the same tool, actions and boundaries. */
  affordanceDuplicateRelation: "participant.tool-affordance-duplicate-relation",
  /** An affordance action is not among its specification's actions. */
  affordanceActionWidensParent: "participant.tool-affordance-action-widens-parent",
  /** An affordance boundary is not among its specification's boundaries. */
  affordanceBoundaryWidensParent: "participant.tool-affordance-boundary-widens-parent",
  /** An affordance action is not among a participant's actions. */
  affordanceActionOutsideParticipant: "participant.tool-affordance-action-outside-participant",
  /** An affordance boundary is not among a participant's boundaries. */
  affordanceBoundaryOutsideParticipant: "participant.tool-affordance-boundary-outside-participant",
  /** The affordance ref is not both declared by the boundary and classified by one of its view rules. */
  affordanceViewUnclassified: "participant.tool-affordance-view-unclassified",
  /** An affordance `tool_ref` names no `content` entry. */
  affordanceToolRefUnbound: "participant.tool-affordance-tool-ref-unbound",
  /** An affordance action names no declared action contract. */
  affordanceActionRefUnbound: "participant.tool-affordance-action-contract-ref-unbound",
  /** An affordance boundary names no declared observation boundary. */
  affordanceBoundaryRefUnbound: "participant.tool-affordance-observation-boundary-ref-unbound",

  /** An autonomous policy's specification has no explicit `participant_refs`. */
  autonomousExplicitParticipantsRequired: "participant.autonomous-explicit-participants-required",
  /** The specification lacks a backend feature autonomous execution needs. */
  autonomousFeatureRequirementMissing: "participant.autonomous-feature-requirement-missing",
  /** A policy action is not among its specification's actions. */
  autonomousActionWidensParent: "participant.autonomous-action-widens-parent",
  /** A policy action is not among a participant's actions. */
  autonomousActionOutsideParticipant: "participant.autonomous-action-outside-participant",
  /** The policy boundary is not among its specification's boundaries. */
  autonomousBoundaryWidensParent: "participant.autonomous-boundary-widens-parent",
  /** The policy boundary is not among a participant's boundaries. */
  autonomousBoundaryOutsideParticipant: "participant.autonomous-boundary-outside-participant",
  /** The policy clock names no declared clock. */
  autonomousClockUnbound: "participant.autonomous-clock-unbound",
  /** The policy progression policy names no declared progression policy. */
  autonomousProgressionUnbound: "participant.autonomous-progression-unbound",
  /** The progression policy drives a different clock than the policy's. */
  autonomousProgressionClockMismatch: "participant.autonomous-progression-clock-mismatch",
  /** A policy temporal constraint names no declared constraint. */
  autonomousConstraintUnbound: "participant.autonomous-constraint-unbound",
  /** A policy temporal constraint is on a different clock than the policy's. */
  autonomousConstraintClockMismatch: "participant.autonomous-constraint-clock-mismatch",
  /** A v2/v3 work or pause window is not a `window` constraint. */
  autonomousActivityWindowKindInvalid: "participant.autonomous-activity-window-kind-invalid",
  /** A v2/v3 window does not cover the specification or its participants. */
  autonomousActivityWindowSubjectMismatch: "participant.autonomous-activity-window-subject-mismatch",
  /** v2/v3 timing bounds are not multiples of the progression step. */
  autonomousActivityTimingUnreachable: "participant.autonomous-activity-timing-unreachable",
  /** A v1 policy does not resolve exactly one cadence constraint. */
  autonomousCadenceMissing: "participant.autonomous-cadence-missing",
  /** The cadence can never be reached by the progression steps. */
  autonomousCadenceUnreachable: "participant.autonomous-cadence-unreachable",
  /** The progression mode needs an external driver the runtime does not provide. */
  autonomousProgressionDriverUnsupported: "participant.autonomous-progression-driver-unsupported",
  /** Real-time progression on a clock the runtime does not own. */
  autonomousClockAuthorityUnsupported: "participant.autonomous-clock-authority-unsupported",
  /** A non-evaluated participant does not have role `green`. */
  autonomousNonEvaluatedRoleNotGreen: "participant.autonomous-non-evaluated-role-not-green",
  /** A non-evaluated participant owns an objective. */
  autonomousNonEvaluatedObjectiveAuthority: "participant.autonomous-non-evaluated-objective-authority",
  /** A non-evaluated specification widens authority with outcome rules or authority scopes. */
  autonomousNonEvaluatedAuthorityWidening: "participant.autonomous-non-evaluated-authority-widening",
  /** A declared evaluation authority names an undeclared objective. */
  autonomousEvaluationObjectiveUnbound: "participant.autonomous-evaluation-objective-unbound",
  /** A declared evaluation authority uses an authority namespace RAES does not support. */
  autonomousEvaluationAuthorityNamespaceUnsupported:
    "participant.autonomous-evaluation-authority-namespace-unsupported",
  /** One participant is owned by two autonomous policies. */
  autonomousParticipantOwnerConflict: "participant.autonomous-participant-owner-conflict",
  /** `max_action_attempts` or `max_in_flight` (or another bound) is below 1. */
  autonomousLimitInvalid: "participant.autonomous-limit-invalid",
  /** The policy `profile` is not v1, v2 or v3. */
  autonomousProfileUnknown: "participant.autonomous-profile-unknown",

  /** A clock names no declared time domain. */
  clockTimeDomainUnbound: "time.clock-time-domain-unbound",
  /** A progression policy names no declared clock. */
  progressionClockUnbound: "time.progression-clock-unbound",
  /** Two progression policies drive the same clock. */
  progressionClockDuplicate: "time.progression-clock-duplicate",
  /** A progression policy resets or replays a clock that cannot reset. */
  progressionResetUnsupported: "time.progression-reset-unsupported",
  /** A temporal constraint names no declared clock. */
  constraintClockUnbound: "time.constraint-clock-unbound",
  /** A temporal constraint subject names nothing declared. */
  constraintSubjectUnbound: "time.constraint-subject-unbound",
} as const;
/** One fixed diagnostic code. */
export type DiagnosticCode = (typeof DiagnosticCode)[keyof typeof DiagnosticCode];

/** How serious a diagnostic is. */
export const Severity = {
  /** The scenario cannot be compiled. */
  error: "error",
  /** The scenario loads, but something is ignored or suspicious. */
  warning: "warning",
} as const;
/** A diagnostic severity. */
export type Severity = (typeof Severity)[keyof typeof Severity];

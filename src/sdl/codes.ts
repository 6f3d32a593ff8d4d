/** Fixed diagnostic codes. `sdl.*` and `participant.*` codes are RAES's where RAES has one. */
export const DiagnosticCode = {
  /** The file could not be read. */
  fileUnreadable: "sdl.file.unreadable",
  /** The path names a FIFO, device, directory or socket, which is never read. */
  fileNotRegular: "sdl.file.not_regular",
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
  /** A structural field key is not spelled canonically (lower case, `_` not `-`); RAES stops at the source stage. */
  noncanonicalField: "sdl.noncanonical_field",
  /** The model rejects a value: unknown key, wrong type, missing field, bad enum, range, emptiness, repetition or a cross-field rule (RAES's one model code). */
  modelInvalid: "sdl.model.invalid",
  /** A RAES top-level section raes-ts keeps but does not interpret. */
  sectionUninterpreted: "sdl.section.uninterpreted",
  /** A ref with no more specific code (content target, operating scope, authority anchor, authority scope, mixed-control basis, scope and evidence) names nothing declared, or is ambiguous. */
  refUnbound: "sdl.ref.unbound",

  /** An agent's `entity` names no declared entity. */
  agentEntityUnbound: "participant.agent-entity-unbound",
  /** An agent `initial_knowledge` host, subnet, service or account names nothing of its kind (RAES prose, no RAES code). */
  agentInitialKnowledgeUnbound: "participant.agent-initial-knowledge-unbound",
  /** An agent `allowed_subnets` entry names no switch (RAES prose, no RAES code). */
  agentAllowedSubnetUnbound: "participant.agent-allowed-subnet-unbound",
  /** An interactive-access `target_ref` names no declared node (RAES's code). */
  interactiveAccessTargetUnbound: "participant.interactive-access-target-unbound",
  /** An interactive-access `target_ref` names a node that is not a VM (RAES's code). */
  interactiveAccessTargetNotVm: "participant.interactive-access-target-not-vm",
  /** An interactive-access `account_ref` names no declared account (RAES's code). */
  interactiveAccessAccountUnbound: "participant.interactive-access-account-unbound",
  /** An interactive-access account belongs to another node than the target (RAES's code). */
  interactiveAccessAccountNodeMismatch: "participant.interactive-access-account-node-mismatch",
  /** An interactive-access account is not among the agent's `starting_accounts` (RAES's code). */
  interactiveAccessAccountNotStarting: "participant.interactive-access-account-not-starting",
  /** Two interactive-access entries of one agent name the same VM and channel (RAES's code). */
  interactiveAccessDuplicateEndpoint: "participant.interactive-access-duplicate-endpoint",
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

  /** `behavior_mode` is mixed-control but the specification declares no `mixed_control` (RAES prose, no RAES code). */
  mixedControlMissing: "participant.mixed-control-missing",
  /** `mixed_control` is declared but `behavior_mode` is not mixed-control (RAES prose, no RAES code). */
  mixedControlModeMismatch: "participant.mixed-control-mode-mismatch",
  /** `mixed_control.participant_ref` is not among the specification's `participant_refs` (RAES prose, no RAES code). */
  mixedControlParticipantUnbound: "participant.mixed-control-participant-unbound",
  /** `mixed_control.policy_revision` is not the specification's `semantic_version` (RAES prose, no RAES code). */
  mixedControlPolicyRevisionMismatch: "participant.mixed-control-policy-revision-mismatch",
  /** A controller state's `controller_ref` names no declared agent and is not `self` (RAES prose, no RAES code). */
  mixedControlControllerUnbound: "participant.mixed-control-controller-unbound",
  /** A controller state's authority basis is not among its controller's `authority_anchors` (RAES prose, no RAES code). */
  mixedControlAuthorityOutsideController: "participant.mixed-control-authority-outside-controller",
  /** A controller state's scope ref is outside the specification's `authority_scope_refs` (RAES prose, no RAES code). */
  mixedControlScopeWidensSpecification: "participant.mixed-control-scope-widens-specification",
  /** A controller state's scope ref is outside its controller's `operating_scope` (RAES prose, no RAES code). */
  mixedControlScopeOutsideController: "participant.mixed-control-scope-outside-controller",
  /** The initial controller state has revoked authority (RAES prose, no RAES code). */
  mixedControlInitialRevoked: "participant.mixed-control-initial-revoked",
  /** A transition starts from a state with revoked authority (RAES prose, no RAES code). */
  mixedControlTransitionFromRevoked: "participant.mixed-control-transition-from-revoked",
  /** A transition's effective order is outside its from-state's validity, so it is late (RAES prose, no RAES code). */
  mixedControlTransitionOutsideFromState: "participant.mixed-control-transition-outside-from-state",
  /** A transition's effective order is outside its to-state's validity (RAES prose, no RAES code). */
  mixedControlTransitionOutsideToState: "participant.mixed-control-transition-outside-to-state",
  /** An answer to a proposal does not start from the proposal's resulting state (RAES prose, no RAES code). */
  mixedControlAnswerStateMismatch: "participant.mixed-control-answer-state-mismatch",
  /** An answer to a proposal does not expect the proposal's resulting revision (RAES prose, no RAES code). */
  mixedControlAnswerRevisionMismatch: "participant.mixed-control-answer-revision-mismatch",
  /** A handoff transition keeps the same controller (RAES prose, no RAES code). */
  mixedControlHandoffSameController: "participant.mixed-control-handoff-same-controller",

  /** `behavior_mode` is not in RAES's participant-decision-surface-modes vocabulary. */
  specModeUngoverned: "participant.behavior-spec-mode-ungoverned",
  /** A `backend_feature_support_refs` entry is not a governed participant runtime feature. */
  specFeatureUngoverned: "participant.behavior-spec-feature-ungoverned",
  /** An `evidence_contract_refs` entry is not a published RAES contract. */
  specEvidenceContractUnbound: "participant.behavior-spec-evidence-contract-unbound",
  /** An `offensive_behavior_refs` entry is not a governed offensive activity. */
  specOffensiveBehaviorUngoverned: "participant.behavior-spec-offensive-behavior-ungoverned",
  /** An `ai_offensive_behavior_refs` entry is not a governed AI-offensive activity. */
  specAiOffensiveBehaviorUngoverned: "participant.behavior-spec-ai-offensive-behavior-ungoverned",
  /** A `defensive_behavior_refs` entry is not a governed defensive activity. */
  specDefensiveBehaviorUngoverned: "participant.behavior-spec-defensive-behavior-ungoverned",

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
  /** An affordance `tool_ref` resolves to nothing, or to something that is not a `content` entry. */
  affordanceToolRefUnbound: "participant.tool-affordance-tool-ref-unbound",
  /** A bare affordance `tool_ref` names both a node and a content entry. */
  affordanceToolRefAmbiguous: "participant.tool-affordance-tool-ref-ambiguous",

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
  /** A participant-owned resource budget names a participant outside its policy's participants (RAES: uncoded). */
  resourceBudgetParticipantOutOfScope: "participant.resource-budget-participant-out-of-scope",
  /** A tenant-owned resource budget names an undeclared deployment tenant (RAES: uncoded). */
  resourceBudgetTenantUnbound: "participant.resource-budget-tenant-unbound",
  /** A tenant-owned resource budget's tenant owns no authorized action target (RAES: uncoded). */
  resourceBudgetTenantUnauthorized: "participant.resource-budget-tenant-unauthorized",
  /** A service-owned resource budget names an undeclared node service (RAES: uncoded). */
  resourceBudgetServiceUnbound: "participant.resource-budget-service-unbound",
  /** A service-owned resource budget's service is not exactly an action target of the policy (RAES: uncoded). */
  resourceBudgetServiceNotTarget: "participant.resource-budget-service-not-target",
  /** No budget tenant has a `uses_shared_service` relationship to a service-owned budget's service (RAES: uncoded). */
  resourceBudgetServiceUnauthorized: "participant.resource-budget-service-unauthorized",

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

import type { CompiledObservationBoundary } from "./boundaries/index.js";
import type {
  CompiledControllerState,
  CompiledControlTransition,
  CompiledMixedControlDispositions,
} from "./mixed-control.js";
import type { CompiledParticipant } from "./participants/index.js";

export type {
  CompiledObservationBoundary,
  CompiledViewRelationSnapshot,
  CompiledViewRule,
  CompiledViewTransition,
} from "./boundaries/index.js";
export type {
  CompiledControllerState,
  CompiledControlTransition,
  CompiledMixedControlDispositions,
} from "./mixed-control.js";
export type { CompiledInteractiveAccess, CompiledParticipant } from "./participants/index.js";

/** Schema tag carried by every compiled runtime model. */
export const RUNTIME_MODEL_SCHEMA = "raes-ts/runtime-model/v1";

/** An action contract with the targets it authors, as compiled addresses. */
export interface CompiledActionContract {
  readonly address: string;
  readonly name: string;
  /** `effects[].target_refs` then `preconditions[].support_refs` that the ref index resolves, distinct, first-seen order. */
  readonly targetAddresses: readonly string[];
  /** True when the contract declares a non-empty `temporal_contracts`. */
  readonly sharedTimeBound: boolean;
  readonly failureClasses: readonly string[];
  /** RAES's fields: the name, the authored scalars, and the distinct classes, ids and kinds in first-seen order. */
  readonly actionName: string;
  readonly semanticVersion: string;
  readonly lifecycleState: string;
  readonly behavioralGranularity: string;
  readonly preconditionClasses: readonly string[];
  readonly effectClasses: readonly string[];
  readonly backendFailureMappings: readonly {
    readonly backendErrorCode: string;
    readonly failureClass: string;
    readonly diagnostic: string;
  }[];
  readonly interactionClasses: readonly string[];
  readonly sharedStateRefs: readonly string[];
  readonly temporalContractIds: readonly string[];
  readonly temporalKinds: readonly string[];
  readonly timeDomains: readonly string[];
  readonly clockAuthorities: readonly string[];
  readonly backendTimingDisclosures: readonly {
    readonly disclosureId: string;
    readonly disclosureKind: string;
    readonly supportMode: string;
    readonly description: string;
    readonly affectedTemporalIds: readonly string[];
    readonly limitations: readonly string[];
  }[];
  /** `<address>.argument-shape.sha256-<hex>` of the canonical JSON of the authored `arguments`. */
  readonly argumentShapeRef: string;
  /** The authored argument definitions sorted by name, each with its `name`. */
  readonly argumentDefinitions: readonly Readonly<Record<string, unknown>>[];
  readonly orderingDependencies: readonly string[];
  readonly refreshDependencies: readonly string[];
}

/** A behavior specification and what it owns. */
export interface CompiledBehaviorSpecification {
  readonly address: string;
  readonly name: string;
  /** As RAES: the declared agents of `participant_refs` only, in authored order. */
  readonly participantAddresses: readonly string[];
  /** raes-ts only: `participant_refs` together with the agents whose role is in `participant_role_refs` (the participants an unscoped affordance binds). */
  readonly scopeParticipantAddresses: readonly string[];
  readonly actionContractAddresses: readonly string[];
  readonly observationBoundaryAddresses: readonly string[];
  readonly toolAffordanceAddresses: readonly string[];
  readonly autonomousPolicyAddress?: string;
  /** RAES's fields, as authored (`behavior_mode` and `realization_profile_ref` are `""` when not authored). */
  readonly specName: string;
  readonly semanticVersion: string;
  readonly lifecycleState: string;
  readonly participantRoleRefs: readonly string[];
  readonly authorityScopeRefs: readonly string[];
  readonly behaviorMode: string;
  readonly aiOffensiveBehaviorRefs: readonly string[];
  readonly defensiveBehaviorRefs: readonly string[];
  readonly offensiveBehaviorRefs: readonly string[];
  readonly realizationProfileRef: string;
  readonly backendFeatureSupportRefs: readonly string[];
  readonly evidenceContractRefs: readonly string[];
  readonly extensionPolicy: string;
  /** The keys of `extensions`, sorted. */
  readonly extensionKeys: readonly string[];
  /** The declared outcome rules of `outcome_interpretation_rule_refs`, distinct. */
  readonly outcomeInterpretationRuleAddresses: readonly string[];
  /** The addressable `authority_scope_refs` (nodes, services, content). */
  readonly authorityScopeAddresses: readonly string[];
  /** One address per `participant_inject_deliveries` id, sorted. */
  readonly participantInjectDeliveryAddresses: readonly string[];
  /** RAES's mixed-control fields (`""`, `null` and empty lists for a specification without `mixed_control`). */
  readonly mixedControlParticipantAddress: string;
  readonly mixedControlPolicyRevision: string;
  readonly mixedControlOrderStrategy: string;
  readonly mixedControlInitialStateAddress: string;
  readonly mixedControlDispositions: CompiledMixedControlDispositions | null;
  readonly controllerStates: readonly CompiledControllerState[];
  readonly controlTransitions: readonly CompiledControlTransition[];
  readonly orderingDependencies: readonly string[];
  /** As RAES: participants, actions, boundaries, outcome rules, authority scope, then the mixed-control addresses, distinct. */
  readonly refreshDependencies: readonly string[];
}

/** One execution binding of an autonomous policy: an action it may run. */
export interface CompiledExecutionBinding {
  readonly bindingId: string;
  readonly actionContractAddress: string;
  readonly targetAddresses: readonly string[];
  readonly participantImplementationRef: string;
  readonly maxActionAttempts: number;
  readonly maxInFlight: number;
}

/** An autonomous execution policy (`participant.autonomous-execution.<spec>`), also the execution scope. */
export interface CompiledAutonomousPolicy {
  readonly address: string;
  /** The behavior specification's name (RAES `name`). */
  readonly name: string;
  readonly behaviorSpecificationAddress: string;
  /** `participant-autonomous-execution/v1` (default), `/v2` or `/v3`. */
  readonly profile: string;
  readonly participantAddresses: readonly string[];
  readonly participantImplementationRef: string;
  readonly clockAddress: string;
  readonly progressionPolicyAddress: string;
  readonly temporalConstraintAddresses: readonly string[];
  /** The cadence constraint that makes actions due, when one resolves. */
  readonly cadenceConstraintAddress?: string;
  /** raes-ts's run order: `action_order` for v1, the distinct actions of the candidates sorted by id for v2/v3. */
  readonly actionOrder: readonly string[];
  /** As RAES: one address per `action_order` entry (v1) or per candidate sorted by id (v2/v3), repeats kept. */
  readonly actionContractAddresses: readonly string[];
  /** The distinct targets of the execution bindings, in binding order. */
  readonly targetAddresses: readonly string[];
  readonly observationBoundaryAddress: string;
  readonly selectionStrategy: string;
  readonly maxActionAttempts: number;
  readonly maxInFlight: number;
  readonly failurePolicy: string;
  readonly evaluationAuthorityMode: string;
  /** `evaluation.objective.<name>` for each authored evaluation-authority objective ref. */
  readonly objectiveRefs: readonly string[];
  readonly proofProducerRefs: readonly string[];
  readonly scoreAuthorityRefs: readonly string[];
  readonly receiptAuthorityRefs: readonly string[];
  readonly executionBindings: readonly CompiledExecutionBinding[];
  /** RAES's flat activity fields (v1: empty lists, `""`, 0, burst 1); the same values `activity` holds. */
  readonly workWindowAddresses: readonly string[];
  readonly pauseWindowAddresses: readonly string[];
  readonly stochasticControlRef: string;
  readonly timingMinimumTicks: number;
  readonly timingMaximumTicks: number;
  readonly outsideWindowDisposition: string;
  readonly emptyEligibleDisposition: string;
  readonly actionCandidateIds: readonly string[];
  readonly actionCandidateWeights: readonly number[];
  readonly actionCandidateDependencies: readonly (readonly string[])[];
  readonly actionCandidateRetryFailureClasses: readonly (readonly string[])[];
  readonly actionCandidateMaxRetries: readonly number[];
  readonly actionCandidateCooldownTicks: readonly number[];
  readonly maxOccurrences: number;
  readonly maxBurstSize: number;
  /** RAES's resource accounting: a v3 policy's `resource_budget`; v1 and v2 policies get RAES's two legacy budgets. */
  readonly resourceOwners?: readonly CompiledResourceOwner[];
  readonly resourceDemands?: readonly CompiledResourceDemand[];
  readonly resourceFairness?: CompiledResourceFairness;
  /** Always empty, as RAES writes it for a policy. */
  readonly orderingDependencies: readonly string[];
  /** As RAES: participants, one action address per action ref, objectives, then targets (repeats kept). */
  readonly refreshDependencies: readonly string[];
  /** The v2/v3 activity fields; absent for v1. */
  readonly activity?: CompiledActivityPolicy;
}

/** An owner of v3 resource budgets, as RAES compiles it. */
export interface CompiledResourceOwner {
  readonly ownerId: string;
  /** `participant`, `deployment_tenant`, `shared_service` or `fleet`. */
  readonly kind: string;
  /** The owner's address: `participant.behavior.<agent>`, `deployment.tenant.<name>`, `provision.node.<n>.service.<s>`, or a fleet ref as authored. */
  readonly address: string;
}

/** One budget dimension of a v3 policy (RAES's resource demand). */
export interface CompiledResourceDemand {
  readonly budgetId: string;
  readonly ownerId: string;
  readonly ownerKind: string;
  readonly ownerAddress: string;
  readonly poolRef: string;
  readonly resourceKind: string;
  readonly unit: string;
  readonly accountingMode: string;
  readonly meterProfileRef: string;
  readonly limit: number;
  readonly reservation: number;
  readonly reset: string;
  /** Set exactly for `windowed_counter` budgets. */
  readonly windowTicks: number | null;
  readonly parentBudgetRef: string | null;
  readonly evidenceRefs: readonly string[];
  /** `authored` for a v3 policy's budget; RAES's legacy budgets of v1 and v2 policies say so. */
  readonly provenance: string;
}

/** The one fairness obligation of a v3 policy. */
export interface CompiledResourceFairness {
  readonly policy: string;
  readonly priorityClass: string;
  readonly weight: number;
  readonly protected: boolean;
  readonly borrowing: string;
  readonly reclaim: string;
  readonly maxQueueTicks: number;
  readonly starvationBoundTicks: number;
}

/** A shared-time position: a tick and a microstep within it. */
export interface CompiledTimePoint {
  readonly tick: number;
  readonly microstep: number;
}

/** A finite half-open `window` constraint [start, end) on the policy clock. */
export interface CompiledWindow {
  readonly address: string;
  readonly start: CompiledTimePoint;
  readonly end: CompiledTimePoint;
}

/** One weighted activity candidate (v2/v3). */
export interface CompiledActivityCandidate {
  readonly id: string;
  readonly actionContractAddress: string;
  readonly weight: number;
  /** Candidate ids that must have completed before this one is eligible, as authored. */
  readonly dependsOn: readonly string[];
  readonly retryableFailureClasses: readonly string[];
  readonly maxRetries: number;
  readonly cooldownTicks: number;
}

/** The activity part of a v2/v3 policy, as RAES compiles it. */
export interface CompiledActivityPolicy {
  /** Work windows, sorted by (start, end). */
  readonly workWindows: readonly CompiledWindow[];
  /** Pause windows, sorted by (start, end). */
  readonly pauseWindows: readonly CompiledWindow[];
  readonly timingMinimumTicks: number;
  readonly timingMaximumTicks: number;
  /** Ticks per step of the policy's progression when it is `stepped`; timing draws are in steps then. */
  readonly stepTicks?: number;
  readonly outsideWindowDisposition: "skip" | "next_opening";
  readonly emptyEligibleDisposition: "complete" | "wait";
  readonly stochasticControlRef: string;
  /** Candidates in canonical order (sorted by id); the weighted draw walks this order. */
  readonly candidates: readonly CompiledActivityCandidate[];
  readonly maxOccurrences: number;
  readonly maxBurstSize: number;
}

/** An authored tool affordance. */
export interface CompiledToolAffordance {
  readonly address: string;
  readonly id: string;
  readonly behaviorSpecificationAddress: string;
  readonly actionContractAddresses: readonly string[];
  readonly observationBoundaryAddresses: readonly string[];
  /** Resolved `tool_ref` content address; `""` when not authored (as RAES). */
  readonly toolAddress: string;
  /** RAES's fields: the id (twice), the authored refs (`tool_ref` is `""` when not authored). */
  readonly name: string;
  readonly affordanceId: string;
  readonly toolRef: string;
  readonly actionContractRefs: readonly string[];
  readonly observationBoundaryRefs: readonly string[];
  readonly orderingDependencies: readonly string[];
  /** As RAES: the specification, then the action and boundary addresses. */
  readonly refreshDependencies: readonly string[];
}

/** One (affordance × action contract × participant) record: what a tool call may claim. */
export interface CompiledAffordanceBinding {
  readonly toolAffordanceAddress: string;
  readonly actionContractAddress: string;
  readonly participantAddress: string;
  readonly observationBoundaryAddresses: readonly string[];
  readonly targetAddresses: readonly string[];
}

/** A scenario clock. */
export interface CompiledClock {
  readonly address: string;
  /** `time.domain.<name>`. */
  readonly timeDomainAddress: string;
  readonly authorityKind: string;
  readonly authorityRef: string;
  readonly monotonicity: string;
  readonly supportsJump: boolean;
  readonly description: string;
  /** The time domain participant history reports for this clock, as RAES maps its domain kind (`simulation_time`, ...). */
  readonly participantTimeDomain: string;
  readonly supportsPause: boolean;
  readonly supportsReset: boolean;
}

/** A time domain (`time.domain.<name>`). */
export interface CompiledTimeDomain {
  readonly address: string;
  readonly kind: string;
  readonly tickPeriodNumerator: number;
  readonly tickPeriodDenominator: number;
  readonly epoch: string;
  readonly visibility: string;
  readonly description: string;
}

/** A time progression policy. */
export interface CompiledProgressionPolicy {
  readonly address: string;
  readonly clockAddress: string;
  readonly advancementMode: string;
  /** The authored pacing ratio; 1/1 when not authored. */
  readonly pacingNumerator: number;
  readonly pacingDenominator: number;
  readonly synchronizationMode: string;
  /** Ticks per progression step; null when the policy is not `stepped`. */
  readonly stepTicks: number | null;
  readonly driftBoundTicks: number | null;
  readonly resetBehavior: string;
  readonly replayBehavior: string;
  readonly description: string;
}

/** A temporal constraint; cadence constraints drive the scheduler. */
export interface CompiledTemporalConstraint {
  readonly address: string;
  readonly kind: string;
  readonly clockAddress: string;
  /** As RAES: `sdl.<section>.<name>` (`_` in the section written `-`), or `sdl.workflow-step.<workflow>.<step>`. */
  readonly subjectAddresses: readonly string[];
  /** The authored coordinates; null when not authored. */
  readonly startTick: number | null;
  readonly startMicrostep: number | null;
  readonly endTick: number | null;
  readonly endMicrostep: number | null;
  readonly durationTicks: number | null;
  readonly cadenceTicks: number | null;
  readonly description: string;
}

/** The compiled, address-keyed runtime model. Record keys are sorted addresses. */
export interface RuntimeModel {
  readonly schema: typeof RUNTIME_MODEL_SCHEMA;
  readonly scenario: { readonly name: string; readonly version: string };
  readonly actionContracts: Readonly<Record<string, CompiledActionContract>>;
  readonly observationBoundaries: Readonly<Record<string, CompiledObservationBoundary>>;
  readonly participants: Readonly<Record<string, CompiledParticipant>>;
  readonly behaviorSpecifications: Readonly<Record<string, CompiledBehaviorSpecification>>;
  readonly autonomousPolicies: Readonly<Record<string, CompiledAutonomousPolicy>>;
  readonly toolAffordances: Readonly<Record<string, CompiledToolAffordance>>;
  /** Sorted by (participant, affordance, action). */
  readonly affordanceBindings: readonly CompiledAffordanceBinding[];
  readonly timeDomains: Readonly<Record<string, CompiledTimeDomain>>;
  readonly clocks: Readonly<Record<string, CompiledClock>>;
  readonly progressionPolicies: Readonly<Record<string, CompiledProgressionPolicy>>;
  readonly temporalConstraints: Readonly<Record<string, CompiledTemporalConstraint>>;
}

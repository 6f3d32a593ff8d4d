/** Schema tag carried by every compiled runtime model. */
export const RUNTIME_MODEL_SCHEMA = "raes-ts/runtime-model/v1";

/** An action contract with the targets it authors, as compiled addresses. */
export interface CompiledActionContract {
  readonly address: string;
  readonly name: string;
  /** Addressable `effects[].target_refs` then `preconditions[].support_refs`, deduplicated, first-seen order. */
  readonly targetAddresses: readonly string[];
  /** True when the contract declares a non-empty `temporal_contracts`. */
  readonly sharedTimeBound: boolean;
  readonly failureClasses: readonly string[];
}

/** One authored view rule of an observation boundary. */
export interface CompiledViewRule {
  readonly informationRef: string;
  readonly disposition: string;
}

/** An observation boundary with its declared refs and the evidence a tool outcome may carry. */
export interface CompiledObservationBoundary {
  readonly address: string;
  readonly name: string;
  /** Every ref the boundary declares (observable, hidden, evidence), as authored. */
  readonly declaredRefs: readonly string[];
  readonly evidenceRefs: readonly string[];
  readonly viewRules: readonly CompiledViewRule[];
  /** Declared evidence refs whose view rule is not `hidden`: the only evidence an outcome may cite. */
  readonly outcomeEvidenceRefs: readonly string[];
}

/** A participant (`participant.behavior.<agent>`). */
export interface CompiledParticipant {
  readonly address: string;
  readonly agent: string;
  readonly entity?: string;
  readonly role?: string;
  readonly actionContractAddresses: readonly string[];
  readonly observationBoundaryAddresses: readonly string[];
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
  readonly specificationAddress: string;
  /** `participant-autonomous-execution/v1` (default), `/v2` or `/v3`. */
  readonly profile: string;
  readonly participantAddresses: readonly string[];
  readonly participantImplementationRef: string;
  readonly clockAddress: string;
  readonly progressionPolicyAddress: string;
  readonly temporalConstraintAddresses: readonly string[];
  /** The cadence constraint that makes actions due, when one resolves. */
  readonly cadenceConstraintAddress?: string;
  /** Action contract addresses in run order: `action_order` for v1, candidates sorted by id for v2/v3. */
  readonly actionOrder: readonly string[];
  readonly observationBoundaryAddress: string;
  readonly selectionStrategy: string;
  readonly maxActionAttempts: number;
  readonly maxInFlight: number;
  readonly failurePolicy: string;
  readonly evaluationMode: string;
  readonly executionBindings: readonly CompiledExecutionBinding[];
  /** The v2/v3 activity fields; absent for v1. */
  readonly activity?: CompiledActivityPolicy;
  /** v3: the budget owners, sorted by owner id (RAES's `resource_owners`); absent for v1 and v2. */
  readonly resourceOwners?: readonly CompiledResourceOwner[];
  /** v3: one demand per budget dimension, sorted by budget id (RAES's `resource_demands`); absent for v1 and v2. */
  readonly resourceDemands?: readonly CompiledResourceDemand[];
  /** v3: the policy's one fairness obligation (RAES's `resource_fairness`); absent for v1 and v2. */
  readonly resourceFairness?: CompiledResourceFairness;
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
  /** Always `authored` for a v3 policy. */
  readonly provenance: "authored";
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
  readonly specificationAddress: string;
  readonly actionContractAddresses: readonly string[];
  readonly observationBoundaryAddresses: readonly string[];
  /** Resolved `tool_ref` content address, when authored. */
  readonly toolAddress?: string;
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
  readonly timeDomain: string;
  /** The time domain participant history reports for this clock, as RAES maps its domain kind (`simulation_time`, ...). */
  readonly participantTimeDomain: string;
  readonly supportsPause: boolean;
  readonly supportsReset: boolean;
}

/** A time progression policy. */
export interface CompiledProgressionPolicy {
  readonly address: string;
  readonly clockAddress: string;
  readonly advancementMode: string;
  /** Ticks per progression step; 0 when the policy is not `stepped`. */
  readonly stepTicks: number;
  readonly resetBehavior: string;
}

/** A temporal constraint; cadence constraints drive the scheduler. */
export interface CompiledTemporalConstraint {
  readonly address: string;
  readonly kind: string;
  readonly clockAddress: string;
  readonly startTick: number;
  readonly cadenceTicks?: number;
  readonly subjectRefs: readonly string[];
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
  readonly clocks: Readonly<Record<string, CompiledClock>>;
  readonly progressionPolicies: Readonly<Record<string, CompiledProgressionPolicy>>;
  readonly temporalConstraints: Readonly<Record<string, CompiledTemporalConstraint>>;
}

import type { AutonomousPolicy, ScenarioIndex } from "../sdl/index.js";
import { AutonomousProfile, policyActionRefs, sectionRefName } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import { compileActivity } from "./compile-activity.js";
import { compileResourceBudget } from "./compile-budget.js";
import type {
  CompiledAutonomousPolicy,
  CompiledExecutionBinding,
  CompiledResourceDemand,
  CompiledResourceFairness,
  CompiledResourceOwner,
} from "./model.js";
import { resolveNames } from "./records.js";

/** RAES's two legacy budgets of a v1/v2 policy: its attempt bound per segment and its in-flight bound. */
function legacyResources(
  policy: AutonomousPolicy,
  participantAddresses: readonly string[],
): Pick<CompiledAutonomousPolicy, "resourceOwners" | "resourceDemands" | "resourceFairness"> {
  const owner: CompiledResourceOwner = {
    ownerId: "legacy-participant",
    kind: "participant",
    address: participantAddresses[0] ?? "",
  };
  const demand = (
    budgetId: string,
    fields: Pick<
      CompiledResourceDemand,
      "resourceKind" | "accountingMode" | "meterProfileRef" | "limit" | "reset" | "windowTicks"
    >,
  ): CompiledResourceDemand => ({
    budgetId,
    ownerId: owner.ownerId,
    ownerKind: owner.kind,
    ownerAddress: owner.address,
    poolRef: "legacy-participant",
    unit: "actions",
    reservation: 1,
    parentBudgetRef: null,
    evidenceRefs: [],
    provenance: "legacy_maximum",
    ...fields,
  });
  const fairness: CompiledResourceFairness = {
    policy: "legacy_bounded",
    priorityClass: "standard",
    weight: 1,
    protected: false,
    borrowing: "none",
    reclaim: "none",
    maxQueueTicks: 0,
    starvationBoundTicks: 1,
  };
  return {
    resourceOwners: [owner],
    resourceDemands: [
      demand("legacy-action-rate", {
        resourceKind: "action_rate",
        accountingMode: "windowed_counter",
        meterProfileRef: "raes.action-attempt/v1",
        limit: policy.max_action_attempts,
        reset: "time_segment",
        windowTicks: policy.max_action_attempts,
      }),
      demand("legacy-concurrent-actions", {
        resourceKind: "concurrent_actions",
        accountingMode: "reservable_gauge",
        meterProfileRef: "raes.concurrent-action/v1",
        limit: policy.max_in_flight,
        reset: "reconciled",
        windowTicks: null,
      }),
    ],
    resourceFairness: fairness,
  };
}

/** The flat activity fields RAES writes on every policy (a v1 policy gets RAES's empty values). */
function flatActivity(
  policy: CompiledAutonomousPolicy["activity"],
  address: (ref: string) => string,
  workRefs: readonly string[],
  pauseRefs: readonly string[],
) {
  const candidates = policy?.candidates ?? [];
  return {
    workWindowAddresses: workRefs.map(address),
    pauseWindowAddresses: pauseRefs.map(address),
    stochasticControlRef: policy?.stochasticControlRef ?? "",
    timingMinimumTicks: policy?.timingMinimumTicks ?? 0,
    timingMaximumTicks: policy?.timingMaximumTicks ?? 0,
    outsideWindowDisposition: policy?.outsideWindowDisposition ?? "",
    emptyEligibleDisposition: policy?.emptyEligibleDisposition ?? "",
    actionCandidateIds: candidates.map((c) => c.id),
    actionCandidateWeights: candidates.map((c) => c.weight),
    actionCandidateDependencies: candidates.map((c) => [...c.dependsOn]),
    actionCandidateRetryFailureClasses: candidates.map((c) => [...c.retryableFailureClasses]),
    actionCandidateMaxRetries: candidates.map((c) => c.maxRetries),
    actionCandidateCooldownTicks: candidates.map((c) => c.cooldownTicks),
    maxOccurrences: policy?.maxOccurrences ?? 0,
    maxBurstSize: policy?.maxBurstSize ?? 1,
  };
}

/** Compiles one autonomous execution policy with every field RAES writes for it (docs/raes-mapping.md). */
export function compilePolicy(
  index: ScenarioIndex,
  specName: string,
  policy: AutonomousPolicy,
  participantAddresses: readonly string[],
  targetsOf: (action: string) => readonly string[],
): CompiledAutonomousPolicy {
  const { scenario } = index;
  const address = Addresses.autonomousPolicy(specName);
  const clockName = sectionRefName(policy.clock_ref, "clocks", scenario.clocks) ?? policy.clock_ref;
  const progressionName =
    sectionRefName(
      policy.progression_policy_ref,
      "time_progression_policies",
      scenario.time_progression_policies,
    ) ?? policy.progression_policy_ref;
  const constraintAddress = (ref: string) =>
    Addresses.temporalConstraint(
      sectionRefName(ref, "temporal_constraints", scenario.temporal_constraints) ?? ref,
    );
  const v1 = policy.profile === AutonomousProfile.v1;
  const workRefs = v1 ? [] : policy.work_window_refs;
  const pauseRefs = v1 ? [] : policy.pause_window_refs;
  const constraintRefs = v1 ? policy.temporal_constraint_refs : [...workRefs, ...pauseRefs];
  const cadence = v1
    ? constraintRefs.find((ref) => {
        const name = sectionRefName(ref, "temporal_constraints", scenario.temporal_constraints);
        return name !== undefined && scenario.temporal_constraints[name]?.constraint_kind === "cadence";
      })
    : undefined;
  const actionRefs = policyActionRefs(policy).map(([ref]) => ref);
  const actionName = (ref: string) => sectionRefName(ref, "action_contracts", scenario.action_contracts);
  const actions = resolveNames(actionRefs, actionName);
  const executionBindings = actions.map(
    (action): CompiledExecutionBinding => ({
      bindingId: Addresses.executionBinding(address, action),
      actionContractAddress: Addresses.actionContract(action),
      targetAddresses: [...targetsOf(action)],
      participantImplementationRef: policy.participant_implementation_ref,
      maxActionAttempts: policy.max_action_attempts,
      maxInFlight: policy.max_in_flight,
    }),
  );
  const actionContractAddresses = actionRefs.map((ref) => Addresses.actionContract(actionName(ref) ?? ref));
  const targetAddresses = [...new Set(executionBindings.flatMap((binding) => binding.targetAddresses))];
  const authority = policy.evaluation_authority;
  const objectiveRefs = authority.objective_refs.map((ref) => {
    const objectives = (scenario as { readonly objectives?: unknown }).objectives;
    const declared: Readonly<Record<string, unknown>> =
      objectives !== null && typeof objectives === "object" ? (objectives as Record<string, unknown>) : {};
    return Addresses.objective(sectionRefName(ref, "objectives", declared) ?? ref);
  });
  const boundary =
    sectionRefName(
      policy.observation_boundary_ref,
      "observation_boundaries",
      scenario.observation_boundaries,
    ) ?? policy.observation_boundary_ref;
  const activity = compileActivity(scenario, policy);
  return {
    address,
    name: specName,
    behaviorSpecificationAddress: Addresses.behaviorSpecification(specName),
    profile: policy.profile,
    participantAddresses: [...participantAddresses],
    participantImplementationRef: policy.participant_implementation_ref,
    clockAddress: Addresses.clock(clockName),
    progressionPolicyAddress: Addresses.progressionPolicy(progressionName),
    temporalConstraintAddresses: constraintRefs.map(constraintAddress),
    ...(cadence === undefined ? {} : { cadenceConstraintAddress: constraintAddress(cadence) }),
    actionOrder: actions.map(Addresses.actionContract),
    actionContractAddresses,
    targetAddresses,
    observationBoundaryAddress: Addresses.observationBoundary(boundary),
    selectionStrategy: policy.selection_strategy,
    maxActionAttempts: policy.max_action_attempts,
    maxInFlight: policy.max_in_flight,
    failurePolicy: policy.failure_policy,
    evaluationAuthorityMode: authority.mode,
    objectiveRefs,
    proofProducerRefs: [...authority.proof_producer_refs],
    scoreAuthorityRefs: [...authority.score_authority_refs],
    receiptAuthorityRefs: [...authority.receipt_authority_refs],
    executionBindings,
    ...flatActivity(activity, constraintAddress, workRefs, pauseRefs),
    ...(policy.profile === AutonomousProfile.v3
      ? (compileResourceBudget(scenario, policy, participantAddresses) ?? {})
      : legacyResources(policy, participantAddresses)),
    orderingDependencies: [],
    refreshDependencies: [
      ...participantAddresses,
      ...actionContractAddresses,
      ...objectiveRefs,
      ...targetAddresses,
    ],
    ...(activity === undefined ? {} : { activity }),
  };
}

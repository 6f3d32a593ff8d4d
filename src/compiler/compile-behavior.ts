import type { AutonomousPolicy, ScenarioIndex } from "../sdl/index.js";
import { AutonomousProfile, policyActionRefs, sectionRefName } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import { compileActivity } from "./compile-activity.js";
import { compileResourceBudget } from "./compile-budget.js";
import type {
  CompiledActionContract,
  CompiledAffordanceBinding,
  CompiledAutonomousPolicy,
  CompiledBehaviorSpecification,
  CompiledExecutionBinding,
  CompiledToolAffordance,
  RuntimeModel,
} from "./model.js";
import { byAddress, compareText as compare } from "./records.js";

type BehaviorPart = Pick<
  RuntimeModel,
  "behaviorSpecifications" | "autonomousPolicies" | "toolAffordances" | "affordanceBindings"
>;

/** Compiles specifications, autonomous policies, tool affordances and the affordance bindings. */
export function compileBehavior(
  index: ScenarioIndex,
  actionContracts: Readonly<Record<string, CompiledActionContract>>,
): BehaviorPart {
  const { scenario } = index;
  const actionName = (ref: string) => sectionRefName(ref, "action_contracts", scenario.action_contracts);
  const boundaryName = (ref: string) =>
    sectionRefName(ref, "observation_boundaries", scenario.observation_boundaries);
  const actionAddresses = (refs: readonly string[]) =>
    resolveNames(refs, actionName).map(Addresses.actionContract);
  const boundaryAddresses = (refs: readonly string[]) =>
    resolveNames(refs, boundaryName).map(Addresses.observationBoundary);

  const specifications: CompiledBehaviorSpecification[] = [];
  const policies: CompiledAutonomousPolicy[] = [];
  const affordances: CompiledToolAffordance[] = [];
  const bindings: CompiledAffordanceBinding[] = [];
  for (const [specName, spec] of Object.entries(scenario.behavior_specifications)) {
    const specAddress = Addresses.behaviorSpecification(specName);
    const specParticipants = index.specificationParticipants(spec).map(Addresses.participant);
    const policyParticipants = index.explicitParticipants(spec).map(Addresses.participant);
    const policy = spec.autonomous_execution;
    const policyAddress = policy === undefined ? undefined : Addresses.autonomousPolicy(specName);
    if (policy !== undefined) {
      const targets = (action: string) =>
        actionContracts[Addresses.actionContract(action)]?.targetAddresses ?? [];
      policies.push(compilePolicy(index, specName, policy, [...new Set(policyParticipants)], targets));
    }
    const affordanceAddresses: string[] = [];
    for (const [id, affordance] of Object.entries(spec.tool_affordances)) {
      const toolName =
        affordance.tool_ref && sectionRefName(affordance.tool_ref, "content", scenario.content);
      const compiled: CompiledToolAffordance = {
        address: Addresses.toolAffordance(specName, id),
        id,
        specificationAddress: specAddress,
        actionContractAddresses: actionAddresses(affordance.action_contract_refs),
        observationBoundaryAddresses: boundaryAddresses(affordance.observation_boundary_refs),
        ...(toolName ? { toolAddress: Addresses.content(toolName) } : {}),
      };
      affordances.push(compiled);
      affordanceAddresses.push(compiled.address);
      const participants = policy === undefined ? specParticipants : policyParticipants;
      for (const action of compiled.actionContractAddresses) {
        for (const participant of new Set(participants)) {
          bindings.push({
            toolAffordanceAddress: compiled.address,
            actionContractAddress: action,
            participantAddress: participant,
            observationBoundaryAddresses: compiled.observationBoundaryAddresses,
            targetAddresses: actionContracts[action]?.targetAddresses ?? [],
          });
        }
      }
    }
    specifications.push({
      address: specAddress,
      name: specName,
      participantAddresses: [...new Set(policyParticipants)],
      scopeParticipantAddresses: [...new Set(specParticipants)],
      actionContractAddresses: actionAddresses(spec.action_contract_refs),
      observationBoundaryAddresses: boundaryAddresses(spec.observation_boundary_refs),
      toolAffordanceAddresses: affordanceAddresses.sort(compare),
      ...(policyAddress === undefined ? {} : { autonomousPolicyAddress: policyAddress }),
    });
  }
  bindings.sort(
    (a, b) =>
      compare(a.participantAddress, b.participantAddress) ||
      compare(a.toolAffordanceAddress, b.toolAffordanceAddress) ||
      compare(a.actionContractAddress, b.actionContractAddress),
  );
  return {
    behaviorSpecifications: byAddress(specifications),
    autonomousPolicies: byAddress(policies),
    toolAffordances: byAddress(affordances),
    affordanceBindings: bindings,
  };
}

function resolveNames(refs: readonly string[], resolve: (ref: string) => string | undefined): string[] {
  const out = new Set<string>();
  for (const ref of refs) {
    const name = resolve(ref);
    if (name !== undefined) out.add(name);
  }
  return [...out];
}

function compilePolicy(
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
  const constraintRefs =
    policy.profile === AutonomousProfile.v1
      ? policy.temporal_constraint_refs
      : [...policy.work_window_refs, ...policy.pause_window_refs];
  const constraintNames = constraintRefs.map(
    (ref) => sectionRefName(ref, "temporal_constraints", scenario.temporal_constraints) ?? ref,
  );
  const cadence =
    policy.profile === AutonomousProfile.v1
      ? constraintNames.find((name) => scenario.temporal_constraints[name]?.constraint_kind === "cadence")
      : undefined;
  const actions = resolveNames(
    policyActionRefs(policy).map(([ref]) => ref),
    (ref) => sectionRefName(ref, "action_contracts", scenario.action_contracts),
  );
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
  const boundary =
    sectionRefName(
      policy.observation_boundary_ref,
      "observation_boundaries",
      scenario.observation_boundaries,
    ) ?? policy.observation_boundary_ref;
  return {
    address,
    specificationAddress: Addresses.behaviorSpecification(specName),
    profile: policy.profile,
    participantAddresses: [...participantAddresses],
    participantImplementationRef: policy.participant_implementation_ref,
    clockAddress: Addresses.clock(clockName),
    progressionPolicyAddress: Addresses.progressionPolicy(progressionName),
    temporalConstraintAddresses: constraintNames.map(Addresses.temporalConstraint),
    ...(cadence === undefined ? {} : { cadenceConstraintAddress: Addresses.temporalConstraint(cadence) }),
    actionOrder: actions.map(Addresses.actionContract),
    observationBoundaryAddress: Addresses.observationBoundary(boundary),
    selectionStrategy: policy.selection_strategy,
    maxActionAttempts: policy.max_action_attempts,
    maxInFlight: policy.max_in_flight,
    failurePolicy: policy.failure_policy,
    evaluationMode: policy.evaluation_authority.mode,
    executionBindings,
    ...activityPart(scenario, policy),
    ...budgetPart(scenario, policy, participantAddresses),
  };
}

function activityPart(scenario: ScenarioIndex["scenario"], policy: AutonomousPolicy) {
  const activity = compileActivity(scenario, policy);
  return activity === undefined ? {} : { activity };
}

function budgetPart(
  scenario: ScenarioIndex["scenario"],
  policy: AutonomousPolicy,
  participantAddresses: readonly string[],
) {
  return compileResourceBudget(scenario, policy, participantAddresses) ?? {};
}

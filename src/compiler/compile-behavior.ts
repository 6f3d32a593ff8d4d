import type { ScenarioIndex } from "../sdl/index.js";
import { sectionRefName } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import { compilePolicy } from "./compile-policy.js";
import { compileMixedControl } from "./mixed-control.js";
import type {
  CompiledActionContract,
  CompiledAffordanceBinding,
  CompiledAutonomousPolicy,
  CompiledBehaviorSpecification,
  CompiledToolAffordance,
  RuntimeModel,
} from "./model.js";
import { byAddress, compareText as compare, resolveNames } from "./records.js";
import type { RefIndex } from "./ref-index.js";

type BehaviorPart = Pick<
  RuntimeModel,
  "behaviorSpecifications" | "autonomousPolicies" | "toolAffordances" | "affordanceBindings"
>;

/** Compiles specifications, autonomous policies, tool affordances and the affordance bindings. */
export function compileBehavior(
  index: ScenarioIndex,
  refs: RefIndex,
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
      const affordanceActions = actionAddresses(affordance.action_contract_refs);
      const affordanceBoundaries = boundaryAddresses(affordance.observation_boundary_refs);
      const compiled: CompiledToolAffordance = {
        address: Addresses.toolAffordance(specName, id),
        id,
        behaviorSpecificationAddress: specAddress,
        actionContractAddresses: affordanceActions,
        observationBoundaryAddresses: affordanceBoundaries,
        toolAddress: toolName ? Addresses.content(toolName) : "",
        name: id,
        affordanceId: id,
        toolRef: affordance.tool_ref ?? "",
        actionContractRefs: [...affordance.action_contract_refs],
        observationBoundaryRefs: [...affordance.observation_boundary_refs],
        orderingDependencies: [],
        refreshDependencies: [
          specAddress,
          ...(toolName ? [Addresses.content(toolName)] : []),
          ...affordanceActions,
          ...affordanceBoundaries,
        ],
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
    const ruleNames = index.sectionNames("outcome_interpretation_rules");
    const outcomeRules = [...new Set(spec.outcome_interpretation_rule_refs)]
      .filter((ref) => ruleNames.includes(ref))
      .map(Addresses.outcomeRule);
    const authorityScope = refs.addresses(spec.authority_scope_refs);
    const mixedControl = compileMixedControl(specName, spec.mixed_control, refs);
    specifications.push({
      address: specAddress,
      name: specName,
      participantAddresses: [...new Set(policyParticipants)],
      scopeParticipantAddresses: [...new Set(specParticipants)],
      actionContractAddresses: actionAddresses(spec.action_contract_refs),
      observationBoundaryAddresses: boundaryAddresses(spec.observation_boundary_refs),
      toolAffordanceAddresses: affordanceAddresses.sort(compare),
      ...(policyAddress === undefined ? {} : { autonomousPolicyAddress: policyAddress }),
      specName,
      semanticVersion: spec.semantic_version,
      lifecycleState: spec.lifecycle_state,
      participantRoleRefs: [...spec.participant_role_refs],
      authorityScopeRefs: [...spec.authority_scope_refs],
      behaviorMode: spec.behavior_mode ?? "",
      aiOffensiveBehaviorRefs: [...spec.ai_offensive_behavior_refs],
      defensiveBehaviorRefs: [...spec.defensive_behavior_refs],
      offensiveBehaviorRefs: [...spec.offensive_behavior_refs],
      realizationProfileRef: spec.realization_profile_ref ?? "",
      backendFeatureSupportRefs: [...spec.backend_feature_support_refs],
      evidenceContractRefs: [...spec.evidence_contract_refs],
      extensionPolicy: spec.extension_policy,
      extensionKeys: extensionKeys(spec.extensions),
      outcomeInterpretationRuleAddresses: outcomeRules,
      authorityScopeAddresses: authorityScope,
      participantInjectDeliveryAddresses: mappingKeys(spec.participant_inject_deliveries).map((id) =>
        Addresses.injectDelivery(specName, id),
      ),
      ...mixedControl.fields,
      orderingDependencies: [],
      refreshDependencies: [
        ...new Set([
          ...policyParticipants,
          ...actionAddresses(spec.action_contract_refs),
          ...boundaryAddresses(spec.observation_boundary_refs),
          ...outcomeRules,
          ...authorityScope,
          ...mixedControl.dependencies,
        ]),
      ],
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

function mappingKeys(value: unknown): string[] {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.keys(value).sort(compare)
    : [];
}

const extensionKeys = mappingKeys;

import type { BehaviorSpecification } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import { compareText } from "./records.js";
import type { RefIndex } from "./ref-index.js";

type MixedControl = NonNullable<BehaviorSpecification["mixed_control"]>;

/** How a mixed-control participant treats duplicate, stale, revoked, late, concurrent and conflicting decisions. */
export interface CompiledMixedControlDispositions {
  readonly duplicate: string;
  readonly stale: string;
  readonly revoked: string;
  readonly late: string;
  readonly concurrent: string;
  readonly conflict: string;
}

/** One controller state of a mixed-control specification (`<spec>.controller-state.<id>`). */
export interface CompiledControllerState {
  readonly address: string;
  readonly name: string;
  readonly stateId: string;
  readonly controllerRef: string;
  /** The participant's address for `self`, else `participant.behavior.<controller_ref>`. */
  readonly controllerAddress: string;
  readonly authorityBasisRefs: readonly string[];
  readonly authorityBasisAddresses: readonly string[];
  readonly scopeRefs: readonly string[];
  readonly scopeAddresses: readonly string[];
  readonly policyRevision: string;
  readonly validFromOrder: number;
  readonly validUntilOrder: number;
  readonly authorityStatus: string;
  readonly evidenceRefs: readonly string[];
  readonly evidenceAddresses: readonly string[];
  readonly orderingDependencies: readonly string[];
  /** The controller, then the authority, scope and evidence addresses, distinct. */
  readonly refreshDependencies: readonly string[];
}

/** One control transition of a mixed-control specification (`<spec>.control-transition.<id>`). */
export interface CompiledControlTransition {
  readonly address: string;
  readonly name: string;
  readonly transitionId: string;
  readonly transitionKind: string;
  readonly fromStateAddress: string;
  readonly toStateAddress: string;
  readonly policyRevision: string;
  readonly expectedStateRevision: number;
  readonly resultingStateRevision: number;
  readonly effectiveOrder: number;
  readonly validFromOrder: number;
  readonly validUntilOrder: number;
  /** `""` when the transition answers no proposal. */
  readonly proposalAddress: string;
  readonly proposalRevision: number | null;
  readonly evidenceRefs: readonly string[];
  readonly evidenceAddresses: readonly string[];
  readonly completionEvidenceRefs: readonly string[];
  readonly completionEvidenceAddresses: readonly string[];
  readonly orderingDependencies: readonly string[];
  /** The from and to states, the proposal, then the evidence addresses, distinct. */
  readonly refreshDependencies: readonly string[];
}

/** A specification's compiled mixed-control fields (RAES's names); empty for a specification without `mixed_control`. */
export interface CompiledMixedControl {
  readonly mixedControlParticipantAddress: string;
  readonly mixedControlPolicyRevision: string;
  readonly mixedControlOrderStrategy: string;
  readonly mixedControlInitialStateAddress: string;
  readonly mixedControlDispositions: CompiledMixedControlDispositions | null;
  /** Sorted by state id. */
  readonly controllerStates: readonly CompiledControllerState[];
  /** Sorted by `effective_order`, then id. */
  readonly controlTransitions: readonly CompiledControlTransition[];
}

const NONE: CompiledMixedControl = {
  mixedControlParticipantAddress: "",
  mixedControlPolicyRevision: "",
  mixedControlOrderStrategy: "",
  mixedControlInitialStateAddress: "",
  mixedControlDispositions: null,
  controllerStates: [],
  controlTransitions: [],
};

const distinct = (values: readonly string[]): string[] => [...new Set(values)];

/**
 * Compiles a specification's `mixed_control`, resolving its refs through the ref index; also returns the
 * addresses the specification's refresh dependencies gain from it (the participant, then each state's and
 * each transition's).
 */
export function compileMixedControl(
  specName: string,
  mixedControl: MixedControl | undefined,
  refs: RefIndex,
): { readonly fields: CompiledMixedControl; readonly dependencies: readonly string[] } {
  if (mixedControl === undefined) return { fields: NONE, dependencies: [] };
  const participantAddress = `participant.behavior.${mixedControl.participant_ref}`;
  const stateAddress = (id: string) => Addresses.controllerState(specName, id);
  const controllerStates = Object.entries(mixedControl.controller_states)
    .sort(([a], [b]) => compareText(a, b))
    .map(([stateId, state]): CompiledControllerState => {
      const controllerAddress =
        state.controller_ref === "self" ? participantAddress : `participant.behavior.${state.controller_ref}`;
      const authorityBasisAddresses = refs.addresses(state.authority_basis_refs);
      const scopeAddresses = refs.addresses(state.scope_refs);
      const evidenceAddresses = refs.addresses(state.evidence_refs);
      return {
        address: stateAddress(stateId),
        name: stateId,
        stateId,
        controllerRef: state.controller_ref,
        controllerAddress,
        authorityBasisRefs: [...state.authority_basis_refs],
        authorityBasisAddresses,
        scopeRefs: [...state.scope_refs],
        scopeAddresses,
        policyRevision: state.policy_revision,
        validFromOrder: state.valid_from_order,
        validUntilOrder: state.valid_until_order,
        authorityStatus: state.authority_status,
        evidenceRefs: [...state.evidence_refs],
        evidenceAddresses,
        orderingDependencies: [],
        refreshDependencies: distinct([
          controllerAddress,
          ...authorityBasisAddresses,
          ...scopeAddresses,
          ...evidenceAddresses,
        ]),
      };
    });
  const controlTransitions = Object.entries(mixedControl.transitions)
    .sort(([a, x], [b, y]) => x.effective_order - y.effective_order || compareText(a, b))
    .map(([transitionId, transition]): CompiledControlTransition => {
      const fromStateAddress = stateAddress(transition.from_state_ref);
      const toStateAddress = stateAddress(transition.to_state_ref);
      const proposalRef = transition.proposal_ref ?? undefined;
      const proposalAddress =
        proposalRef === undefined ? "" : Addresses.controlTransition(specName, proposalRef);
      const evidenceAddresses = refs.addresses(transition.evidence_refs);
      const completionEvidenceAddresses = refs.addresses(transition.completion_evidence_refs);
      return {
        address: Addresses.controlTransition(specName, transitionId),
        name: transitionId,
        transitionId,
        transitionKind: transition.transition_kind,
        fromStateAddress,
        toStateAddress,
        policyRevision: transition.policy_revision,
        expectedStateRevision: transition.expected_state_revision,
        resultingStateRevision: transition.resulting_state_revision,
        effectiveOrder: transition.effective_order,
        validFromOrder: transition.valid_from_order,
        validUntilOrder: transition.valid_until_order,
        proposalAddress,
        proposalRevision: transition.proposal_revision ?? null,
        evidenceRefs: [...transition.evidence_refs],
        evidenceAddresses,
        completionEvidenceRefs: [...transition.completion_evidence_refs],
        completionEvidenceAddresses,
        orderingDependencies: [],
        refreshDependencies: distinct([
          fromStateAddress,
          toStateAddress,
          ...(proposalAddress === "" ? [] : [proposalAddress]),
          ...evidenceAddresses,
          ...completionEvidenceAddresses,
        ]),
      };
    });
  const { dispositions } = mixedControl;
  return {
    fields: {
      mixedControlParticipantAddress: participantAddress,
      mixedControlPolicyRevision: mixedControl.policy_revision,
      mixedControlOrderStrategy: mixedControl.order_strategy,
      mixedControlInitialStateAddress: stateAddress(mixedControl.initial_state_ref),
      mixedControlDispositions: {
        duplicate: dispositions.duplicate,
        stale: dispositions.stale,
        revoked: dispositions.revoked,
        late: dispositions.late,
        concurrent: dispositions.concurrent,
        conflict: dispositions.conflict,
      },
      controllerStates,
      controlTransitions,
    },
    dependencies: distinct([
      participantAddress,
      ...controllerStates.flatMap((state) => state.refreshDependencies),
      ...controlTransitions.flatMap((transition) => transition.refreshDependencies),
    ]),
  };
}

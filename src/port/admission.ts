import type { CompiledAffordanceBinding, RuntimeModel } from "../compiler/index.js";
import { ParticipantToolActionRefusal as Refusal } from "./codes.js";
import type { ParticipantToolActionRequest, ToolActionPortIdentity } from "./types.js";

/** The profile whose policies may not admit tool actions. */
export const UNSUPPORTED_POLICY_PROFILE = "participant-autonomous-execution/v3";

/** What admission needs to know about manifest offers: which ones cover a request. */
export interface ExecutionOfferLookup {
  covering(query: {
    readonly actionContractAddress: string;
    readonly participantImplementationRef: string;
    readonly targetAddresses: readonly string[];
  }): readonly unknown[];
}

/** The composition's declared per-invocation limits. */
export interface ToolActionLimits {
  readonly maxToolActionsPerInvocation: number;
  readonly maxConcurrentToolActionsPerInvocation: number;
}

interface IndexedBinding {
  readonly binding: CompiledAffordanceBinding;
  readonly boundaries: ReadonlySet<string>;
  readonly targets: ReadonlySet<string>;
}

/** The static admission rules (3 to 8b) for one participant under one policy, precomputed once. */
export class ParticipantAdmissionRules {
  readonly #bindings = new Map<string, IndexedBinding[]>();
  readonly #sharedTimeBound: ReadonlySet<string>;
  readonly #offers: ExecutionOfferLookup;
  readonly #policyProfile: string;
  readonly #crossingPolicyInstalled: boolean;

  constructor(options: {
    readonly model: RuntimeModel;
    readonly participantAddress: string;
    readonly policyProfile: string;
    readonly offers: ExecutionOfferLookup;
    readonly crossingPolicyInstalled: boolean;
  }) {
    for (const binding of options.model.affordanceBindings) {
      if (binding.participantAddress !== options.participantAddress) continue;
      const key = bindingKey(binding.toolAffordanceAddress, binding.actionContractAddress);
      const indexed: IndexedBinding = {
        binding,
        boundaries: new Set(binding.observationBoundaryAddresses),
        targets: new Set(binding.targetAddresses),
      };
      const list = this.#bindings.get(key);
      if (list) list.push(indexed);
      else this.#bindings.set(key, [indexed]);
    }
    this.#sharedTimeBound = new Set(
      Object.values(options.model.actionContracts)
        .filter((c) => c.sharedTimeBound)
        .map((c) => c.address),
    );
    this.#offers = options.offers;
    this.#policyProfile = options.policyProfile;
    this.#crossingPolicyInstalled = options.crossingPolicyInstalled;
  }

  /** True when the participant has at least one affordance binding, so a port is attached. */
  get hasBindings(): boolean {
    return this.#bindings.size > 0;
  }

  /** Rules 3 to 8b in docs/design.md §5's order; the first failing rule's code, or undefined when all hold. */
  check(identity: ToolActionPortIdentity, request: ParticipantToolActionRequest): Refusal | undefined {
    if (
      request.participantAddress !== identity.participantAddress ||
      request.episodeId !== identity.episodeId ||
      request.participantImplementationRef !== identity.participantImplementationRef ||
      request.invocationActionInstanceId !== identity.invocationActionInstanceId ||
      request.executionScopeRef !== identity.executionScopeRef
    ) {
      return Refusal.identity_mismatch;
    }
    if (request.executionGeneration !== identity.executionGeneration) return Refusal.generation_mismatch;
    const matches = this.#bindings.get(
      bindingKey(request.toolAffordanceAddress, request.actionContractAddress),
    );
    if (matches?.length !== 1) return Refusal.affordance_unbound;
    const [only] = matches;
    if (!only?.boundaries.has(request.observationBoundaryAddress)) return Refusal.boundary_outside_binding;
    for (const target of request.targetAddresses) {
      if (!only.targets.has(target)) return Refusal.target_outside_binding;
    }
    if (this.#sharedTimeBound.has(request.actionContractAddress)) return Refusal.shared_time_bound;
    const offers = this.#offers.covering(request);
    if (offers.length === 0) return Refusal.no_execution_offer;
    if (offers.length > 1) return Refusal.ambiguous_execution_offer;
    if (this.#policyProfile === UNSUPPORTED_POLICY_PROFILE) return Refusal.policy_profile_unsupported;
    if (this.#crossingPolicyInstalled) return Refusal.crossing_policy_installed;
    return undefined;
  }
}

function bindingKey(affordance: string, action: string): string {
  return `${affordance}\u0000${action}`;
}

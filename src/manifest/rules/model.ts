import type { CompiledAutonomousPolicy, RuntimeModel } from "../../compiler/index.js";
import { ManifestDiagnosticCode as Code } from "../codes.js";
import { type DiagnosticSink, pointer } from "../diagnostics.js";
import { type ExecutionOfferIndex, indexExecutionOffers } from "../offers.js";
import type { BackendManifest, ExecutionBindingOffer, ParticipantRuntimeCapabilities } from "../types.js";
import { checkActivityAdmission } from "./activity.js";
import { checkResourceBudgetAdmission } from "./budget.js";

const RUNTIME = "participant_runtime";

function at(...segments: readonly (string | number)[]): string {
  return pointer(RUNTIME, ...segments);
}

function checkSupportedValues(
  sink: DiagnosticSink,
  runtime: ParticipantRuntimeCapabilities,
  policies: readonly CompiledAutonomousPolicy[],
): void {
  const requirements = [
    [
      "supported_autonomous_selection_strategies",
      "selection strategy",
      runtime.supportedAutonomousSelectionStrategies,
      // v2 policies answer with their own codes (activity-rules).
      (p: CompiledAutonomousPolicy) => (p.activity ? [] : [p.selectionStrategy]),
    ],
    [
      "supported_autonomous_policy_profiles",
      "policy profile",
      runtime.supportedAutonomousPolicyProfiles,
      (p: CompiledAutonomousPolicy) => (p.activity ? [] : [p.profile]),
    ],
    [
      "supported_autonomous_action_contracts",
      "action contract",
      runtime.supportedAutonomousActionContracts,
      (p: CompiledAutonomousPolicy) => p.executionBindings.map((b) => b.actionContractAddress),
    ],
    [
      "supported_autonomous_observation_boundaries",
      "observation boundary",
      runtime.supportedAutonomousObservationBoundaries,
      (p: CompiledAutonomousPolicy) => [p.observationBoundaryAddress],
    ],
    [
      "supported_autonomous_target_addresses",
      "target address",
      runtime.supportedAutonomousTargetAddresses,
      (p: CompiledAutonomousPolicy) => p.executionBindings.flatMap((b) => b.targetAddresses),
    ],
  ] as const;
  for (const [key, what, supported, needed] of requirements) {
    const supportedSet = new Set(supported);
    const missing = new Map<string, string[]>();
    for (const policy of policies) {
      for (const value of needed(policy)) {
        if (supportedSet.has(value)) continue;
        const users = missing.get(value) ?? [];
        if (!users.includes(policy.address)) users.push(policy.address);
        missing.set(value, users);
      }
    }
    for (const [value, users] of missing) {
      sink.error(
        Code.policy_capability_unsupported,
        at(key),
        `${what} '${value}' needed by ${users.join(", ")} is not in ${key}`,
      );
    }
  }
}

function checkLimits(
  sink: DiagnosticSink,
  runtime: ParticipantRuntimeCapabilities,
  policies: readonly CompiledAutonomousPolicy[],
): void {
  const participants = new Set(policies.flatMap((policy) => policy.participantAddresses));
  const maxParticipants = runtime.maxAutonomousParticipants;
  if (maxParticipants !== undefined && participants.size > maxParticipants) {
    sink.error(
      Code.policy_limit_exceeded,
      at("max_autonomous_participants"),
      `the scenario has ${participants.size} autonomous participants; the manifest allows ${maxParticipants}`,
    );
  }
  for (const policy of policies) {
    for (const [key, needed, allowed] of [
      ["max_autonomous_action_attempts", policy.maxActionAttempts, runtime.maxAutonomousActionAttempts],
      ["max_autonomous_in_flight", policy.maxInFlight, runtime.maxAutonomousInFlight],
    ] as const) {
      if (allowed !== undefined && needed > allowed) {
        sink.error(
          Code.policy_limit_exceeded,
          at(key),
          `${policy.address} needs ${needed}; ${key} is ${allowed}`,
        );
      }
    }
  }
}

function checkPolicyOffers(
  sink: DiagnosticSink,
  offerAt: ReadonlyMap<ExecutionBindingOffer, number>,
  offers: ExecutionOfferIndex,
  policy: CompiledAutonomousPolicy,
): void {
  for (const binding of policy.executionBindings) {
    const covering = offers.covering(binding);
    const subject =
      `${policy.address} action ${binding.actionContractAddress} ` +
      `(implementation ${binding.participantImplementationRef}, targets ${binding.targetAddresses.join(", ")})`;
    if (covering.length === 0) {
      sink.error(
        Code.policy_action_without_offer,
        at("execution_bindings"),
        `no execution-binding offer covers ${subject}`,
      );
      continue;
    }
    if (covering.length > 1) {
      sink.error(
        Code.policy_action_ambiguous_offer,
        at("execution_bindings"),
        `offers ${covering.map((offer) => offer.bindingId).join(", ")} all cover ${subject}`,
      );
      continue;
    }
    const [offer] = covering;
    if (offer === undefined) continue;
    if (offer.maxActionAttempts < binding.maxActionAttempts || offer.maxInFlight < binding.maxInFlight) {
      sink.error(
        Code.offer_limits_below_policy,
        at("execution_bindings", offerAt.get(offer) ?? -1),
        `offer '${offer.bindingId}' allows ${offer.maxActionAttempts} attempts and ${offer.maxInFlight} in flight; ` +
          `${subject} needs ${binding.maxActionAttempts} and ${binding.maxInFlight}`,
      );
    }
  }
}

/** With the claim, every action a tool affordance lets a policy participant call needs an offer on its targets. */
function checkToolActionOffers(
  sink: DiagnosticSink,
  model: RuntimeModel,
  offers: ExecutionOfferIndex,
  policies: readonly CompiledAutonomousPolicy[],
): void {
  const reported = new Set<string>();
  for (const binding of model.affordanceBindings) {
    const bindingTargets = new Set(binding.targetAddresses);
    for (const policy of policies) {
      if (!policy.participantAddresses.includes(binding.participantAddress)) continue;
      const implementation = policy.participantImplementationRef;
      const reachable = offers
        .forAction(binding.actionContractAddress, implementation)
        .some((offer) => offer.targetAddresses.some((target) => bindingTargets.has(target)));
      const key = `${binding.toolAffordanceAddress} ${binding.actionContractAddress} ${implementation}`;
      if (reachable || reported.has(key)) continue;
      reported.add(key);
      sink.error(
        Code.tool_action_without_offer,
        at("execution_bindings"),
        `tool affordance ${binding.toolAffordanceAddress} lets ${implementation} call ` +
          `${binding.actionContractAddress}, but no offer covers any of its targets`,
      );
    }
  }
}

/** Checks a parsed manifest against a compiled scenario: capabilities, limits and offer coverage. */
export function checkAgainstModel(
  sink: DiagnosticSink,
  manifest: BackendManifest,
  model: RuntimeModel,
): void {
  const runtime = manifest.participantRuntime;
  const policies = Object.values(model.autonomousPolicies);
  if (policies.length === 0) return;
  if (!runtime.supportsAutonomousExecution) {
    sink.error(
      Code.autonomous_execution_required,
      at("supports_autonomous_execution"),
      `the scenario has autonomous policies (${policies.map((policy) => policy.address).join(", ")})`,
    );
    return;
  }
  checkSupportedValues(sink, runtime, policies);
  checkLimits(sink, runtime, policies);
  checkActivityAdmission(sink, runtime, policies);
  checkResourceBudgetAdmission(sink, runtime, policies, manifest.supportedContractVersions);
  const offers = indexExecutionOffers(manifest);
  // Offer positions by identity, built once: a search of the offer list per binding is quadratic.
  const offerAt = new Map(
    manifest.participantRuntime.executionBindings.map((offer, index) => [offer, index]),
  );
  for (const policy of policies) checkPolicyOffers(sink, offerAt, offers, policy);
  if (runtime.invocationToolActions !== undefined) checkToolActionOffers(sink, model, offers, policies);
}

import type { CompiledAutonomousPolicy, RuntimeModel } from "../compiler/index.js";
import {
  actorProvenance,
  type EventFrame,
  type HistoryEventDraft,
  type OuterResult,
  outerTriple,
  toolActionTriple,
} from "../history/index.js";
import type { InvocationRecord, ToolActionRecord } from "../store/index.js";
import type { ParticipantRuntime } from "./types.js";

/**
 * The history frame of a policy's invocations: the runtime's implementation identity (RAES's
 * implementation selection; without one, the policy's implementation ref at version `0`) and the
 * policy's shared-time contracts on its clock.
 */
export function eventFrameFor(
  model: RuntimeModel,
  policy: CompiledAutonomousPolicy,
  runtime: Pick<ParticipantRuntime, "implementationIdentity">,
): EventFrame {
  const identity = runtime.implementationIdentity ?? {
    name: policy.participantImplementationRef,
    version: "0",
  };
  return {
    actorProvenance: actorProvenance(identity),
    clockAuthority: policy.clockAddress,
    timeDomain: model.clocks[policy.clockAddress]?.participantTimeDomain ?? "scenario_time",
    temporalContractIds: policy.temporalConstraintAddresses,
  };
}

/** The history frame of each of the model's policies, by policy address. */
export function policyFrames(
  model: RuntimeModel,
  runtime: Pick<ParticipantRuntime, "implementationIdentity">,
): (policyAddress: string) => EventFrame {
  return (policyAddress) => {
    const policy = model.autonomousPolicies[policyAddress];
    if (!policy) throw new Error(`no autonomous policy ${policyAddress} in the model`);
    return eventFrameFor(model, policy, runtime);
  };
}

/** A closed invocation's events: its tool triples in admission order, then its outer triple if it has a result. */
export function closeEvents(
  frame: EventFrame,
  invocation: InvocationRecord,
  toolActions: readonly ToolActionRecord[],
  outer: OuterResult | undefined,
): HistoryEventDraft[] {
  return [
    ...toolActions.flatMap((a) => toolActionTriple(frame, a, invocation)),
    ...(outer ? outerTriple(frame, invocation, outer) : []),
  ];
}

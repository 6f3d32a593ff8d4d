import { canonicalDigest, type ParticipantToolActionRequest, type RuntimeModel } from "../../src/index.js";
import type { InvocationRecord, SchedulerRecord, ToolActionRecord } from "../../src/store/index.js";
import { EXAMPLE } from "../../test/helpers/example.js";

/** Records shaped exactly as the runtime writes them for the example participant. */
export interface ExampleRecords {
  invocation(ordinal: number, state?: InvocationRecord["state"]): InvocationRecord;
  toolAction(invocation: InvocationRecord, phase: ToolActionRecord["phase"]): ToolActionRecord;
  scheduler(nextOrdinal: number): SchedulerRecord;
}

/** Builds records for the example policy's participant in segment 0, as the runtime would. */
export function exampleRecords(model: RuntimeModel): ExampleRecords {
  const policy = model.autonomousPolicies[EXAMPLE.policy];
  if (!policy) throw new Error(`the example model has no policy ${EXAMPLE.policy}`);
  const at = new Date().toISOString();
  return {
    invocation: (ordinal, state = "running") => ({
      id: `${policy.address}:${EXAMPLE.participant}:${ordinal}`,
      policyAddress: policy.address,
      participantAddress: EXAMPLE.participant,
      actionContractAddress: EXAMPLE.action,
      observationBoundaryAddress: policy.observationBoundaryAddress,
      episodeId: `${EXAMPLE.participant}-autonomous-0`,
      segment: 0,
      tick: (ordinal + 1) * 10,
      ordinal,
      executionScopeRef: policy.address,
      executionGeneration: 1,
      observationPoint: `${policy.clockAddress}@segment=0,tick=${(ordinal + 1) * 10}`,
      participantImplementationRef: policy.participantImplementationRef,
      state,
      startedAt: at,
      createdAt: at,
      updatedAt: at,
    }),
    toolAction: (invocation, phase) => {
      const request: ParticipantToolActionRequest = {
        toolCallId: "call-0",
        invocationActionInstanceId: invocation.id,
        participantAddress: invocation.participantAddress,
        episodeId: invocation.episodeId,
        participantImplementationRef: invocation.participantImplementationRef,
        toolAffordanceAddress: EXAMPLE.affordance,
        actionContractAddress: EXAMPLE.action,
        observationBoundaryAddress: EXAMPLE.boundary,
        targetAddresses: [EXAMPLE.portal],
        executionScopeRef: invocation.executionScopeRef,
        executionGeneration: invocation.executionGeneration,
      };
      return {
        id: `${invocation.id}:tool=1`,
        invocationId: invocation.id,
        participantAddress: invocation.participantAddress,
        toolCallId: request.toolCallId,
        admissionOrdinal: 1,
        requestDigest: canonicalDigest(request),
        request,
        phase,
        ...(phase === "settled" ? { settlement: "succeeded" as const } : {}),
        admittedAt: at,
        ...(phase === "admitted" ? {} : { dispatchedAt: at }),
        ...(phase === "settled" ? { settledAt: at } : {}),
        createdAt: at,
        updatedAt: at,
      };
    },
    scheduler: (nextOrdinal) => ({
      participantAddress: EXAMPLE.participant,
      policyAddress: policy.address,
      lifecycle: "running",
      nextOrdinal,
      attempts: nextOrdinal,
      cursor: nextOrdinal,
      segment: 0,
      tick: nextOrdinal * 10,
      updatedAt: at,
    }),
  };
}

import {
  canonicalDigest,
  type HistoryEventDraft,
  HistoryEventType,
  type InvocationRecord,
  type InvocationToolContext,
  LifecyclePhase,
  ObservationStatus,
  type ToolActionRecord,
  type ToolActionSettlement,
  type WireActionResult,
} from "../records/index.js";

export { LifecyclePhase } from "../records/index.js";

const RESULT_STATUS: Readonly<Record<ToolActionSettlement, string>> = {
  succeeded: "succeeded",
  failed: "failed",
  partial_success: "partial_success",
  withheld: "withheld",
  indeterminate: "unknown",
};

/** The outer invocation's typed result, as history records it. */
export interface OuterResult {
  readonly status: string;
  readonly postStateDigest: string;
  readonly failureClass?: string;
  readonly observations?: readonly string[];
  readonly evidenceRefs?: readonly string[];
}

/** The actor provenance of everything a participant implementation does. */
export function actorProvenance(implementationRef: string): string {
  return `participant-implementation:${implementationRef}`;
}

interface TripleBase {
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly attemptPhase: LifecyclePhase;
  readonly postStateDigest: string;
  readonly observationStatus: ObservationStatus;
  readonly actionResult: WireActionResult;
  readonly toolContext?: InvocationToolContext;
}

function triple(invocation: InvocationRecord, base: TripleBase, timestamp: string): HistoryEventDraft[] {
  const common = {
    timestamp,
    participant_address: invocation.participantAddress,
    episode_id: invocation.episodeId,
    action_instance_id: base.actionInstanceId,
    action_contract_address: base.actionContractAddress,
    observation_boundary_address: base.observationBoundaryAddress,
    actor_provenance: actorProvenance(invocation.participantImplementationRef),
    post_state_digest: base.postStateDigest,
    observation_point: invocation.observationPoint,
    execution_scope_ref: invocation.executionScopeRef,
    execution_generation: invocation.executionGeneration,
    ...(base.toolContext ? { invocation_tool_context: base.toolContext } : {}),
  };
  const event = (type: HistoryEventType, phase: LifecyclePhase): HistoryEventDraft => ({
    event_id: `${base.actionInstanceId}#${type}`,
    event_type: type,
    ...common,
    lifecycle_phase: phase,
  });
  return [
    event(HistoryEventType.action_attempted, base.attemptPhase),
    event(HistoryEventType.state_transition_recorded, LifecyclePhase.state_update_commit),
    {
      ...event(HistoryEventType.observation_emitted, LifecyclePhase.observation_emission),
      observation_status: base.observationStatus,
      action_result: base.actionResult,
    },
  ];
}

function wireResult(
  status: string,
  failureClass?: string,
  evidenceRefs?: readonly string[],
): WireActionResult {
  return {
    status,
    ...(failureClass === undefined ? {} : { failure_class: failureClass }),
    ...(evidenceRefs === undefined ? {} : { evidence_refs: [...evidenceRefs] }),
  };
}

/** The `invocation_tool_context` of a settled tool action. */
export function invocationToolContext(
  action: ToolActionRecord,
  invocation: InvocationRecord,
): InvocationToolContext {
  return {
    invocation_action_instance_id: invocation.id,
    invocation_action_contract_address: invocation.actionContractAddress,
    tool_affordance_address: action.request.toolAffordanceAddress,
    tool_call_id: action.toolCallId,
    admission_ordinal: action.admissionOrdinal,
    settlement: action.settlement ?? "",
    execution_scope_ref: invocation.executionScopeRef,
    execution_generation: invocation.executionGeneration,
  };
}

/** The three events of one settled tool action. */
export function toolActionTriple(
  action: ToolActionRecord,
  invocation: InvocationRecord,
  timestamp: string,
): HistoryEventDraft[] {
  const settlement = action.settlement ?? "indeterminate";
  const actionResult = wireResult(RESULT_STATUS[settlement], action.failureClass, action.evidenceRefs);
  const neverStarted = settlement === "withheld";
  return triple(
    invocation,
    {
      actionInstanceId: action.id,
      actionContractAddress: action.request.actionContractAddress,
      observationBoundaryAddress: action.request.observationBoundaryAddress,
      attemptPhase: neverStarted ? LifecyclePhase.selection_or_admission : LifecyclePhase.execution_attempt,
      postStateDigest: canonicalDigest({
        action_instance_id: action.id,
        request_digest: action.requestDigest,
        action_result: actionResult,
      }),
      observationStatus:
        settlement === "indeterminate" ? ObservationStatus.orphaned_action : ObservationStatus.terminal,
      actionResult,
      toolContext: invocationToolContext(action, invocation),
    },
    timestamp,
  );
}

/** The three events of the outer invocation. */
export function outerTriple(
  invocation: InvocationRecord,
  result: OuterResult,
  timestamp: string,
): HistoryEventDraft[] {
  return triple(
    invocation,
    {
      actionInstanceId: invocation.id,
      actionContractAddress: invocation.actionContractAddress,
      observationBoundaryAddress: invocation.observationBoundaryAddress,
      attemptPhase: LifecyclePhase.execution_attempt,
      postStateDigest: result.postStateDigest,
      observationStatus: ObservationStatus.terminal,
      actionResult: wireResult(result.status, result.failureClass, result.evidenceRefs),
    },
    timestamp,
  );
}

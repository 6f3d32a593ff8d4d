import {
  canonicalDigest,
  type HistoryEventDraft,
  HistoryEventType,
  type InvocationRecord,
  type InvocationToolContext,
  LifecyclePhase,
  ObservationStatus,
  type TemporalContext,
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

/** RAES's realization of every phase the runtime writes: the runtime mediates it. */
const RUNTIME_MEDIATED = "runtime_mediated";
/** RAES's disposition of an attempted action: the runtime admitted it. */
const ADMITTED = "admitted";
/** RAES's state-transition kind of an admitted participant action. */
const ACTION_ADMITTED = "participant_action_admitted";
/** The event points RAES's scheduler realizes for each temporal contract of an autonomous action. */
const EVENT_POINTS = ["submit", "start", "end", "observed"] as const;

/** The outer invocation's typed result, as history records it. */
export interface OuterResult {
  readonly status: string;
  readonly postStateDigest: string;
  readonly failureClass?: string;
  readonly observations?: readonly string[];
  readonly evidenceRefs?: readonly string[];
}

/**
 * What every event of one policy's invocations shares: who acts (`actor_provenance`) and the policy's
 * shared-time contracts, each realized at the invocation's observation point.
 */
export interface EventFrame {
  readonly actorProvenance: string;
  readonly clockAuthority: string;
  /** RAES's time domain of the clock (`simulation_time`, ...). */
  readonly timeDomain: string;
  /** The policy's temporal constraint addresses, in authored order. */
  readonly temporalContractIds: readonly string[];
}

/** RAES's actor provenance: `participant-implementation:<name>@<version>`. */
export function actorProvenance(identity: { readonly name: string; readonly version: string }): string {
  return `participant-implementation:${identity.name}@${identity.version}`;
}

/** The temporal contexts of an invocation's events: one per contract, at its observation point. */
export function temporalContexts(frame: EventFrame, invocation: InvocationRecord): TemporalContext[] {
  return frame.temporalContractIds.map((id) => ({
    temporal_contract_id: id,
    time_domain: frame.timeDomain,
    clock_authority: frame.clockAuthority,
    event_points: [...EVENT_POINTS],
    observation_point: invocation.observationPoint,
    reset_boundary: `${frame.clockAuthority}:segment=${invocation.segment}`,
  }));
}

interface TripleBase {
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly postStateDigest: string;
  readonly observationStatus: ObservationStatus;
  readonly actionResult: WireActionResult;
  /** When it was attempted, when its state transition happened, when it was observed. */
  readonly times: readonly [string, string, string];
  readonly toolContext?: InvocationToolContext;
}

function triple(frame: EventFrame, invocation: InvocationRecord, base: TripleBase): HistoryEventDraft[] {
  // Plain literals in RAES's key order (head, the event's own fields, then the shared tail): spreading
  // the shared parts made each event a slow dictionary object, built and serialised per event.
  const temporal = temporalContexts(frame, invocation);
  const { actionInstanceId: id, actionContractAddress: contract } = base;
  const { participantAddress, episodeId, executionScopeRef, executionGeneration } = invocation;
  const [attemptedAt, transitionAt, observedAt] = base.times;
  const attempted: Draft = {
    event_id: `${id}#${HistoryEventType.action_attempted}`,
    event_type: HistoryEventType.action_attempted,
    timestamp: attemptedAt,
    participant_address: participantAddress,
    episode_id: episodeId,
    action_instance_id: id,
    action_contract_address: contract,
    actor_provenance: frame.actorProvenance,
    lifecycle_phase: LifecyclePhase.selection_or_admission,
    phase_realization: RUNTIME_MEDIATED,
    admission_disposition: ADMITTED,
    temporal_contexts: temporal,
    execution_scope_ref: executionScopeRef,
    execution_generation: executionGeneration,
  };
  const transition: Draft = {
    event_id: `${id}#${HistoryEventType.state_transition_recorded}`,
    event_type: HistoryEventType.state_transition_recorded,
    timestamp: transitionAt,
    participant_address: participantAddress,
    episode_id: episodeId,
    action_instance_id: id,
    action_contract_address: contract,
    lifecycle_phase: LifecyclePhase.state_update_commit,
    phase_realization: RUNTIME_MEDIATED,
    state_transition_kind: ACTION_ADMITTED,
    post_state_digest: base.postStateDigest,
    temporal_contexts: temporal,
    execution_scope_ref: executionScopeRef,
    execution_generation: executionGeneration,
  };
  const observed: Draft = {
    event_id: `${id}#${HistoryEventType.observation_emitted}`,
    event_type: HistoryEventType.observation_emitted,
    timestamp: observedAt,
    participant_address: participantAddress,
    episode_id: episodeId,
    action_instance_id: id,
    action_contract_address: contract,
    observation_boundary_address: base.observationBoundaryAddress,
    observation_status: base.observationStatus,
    lifecycle_phase: LifecyclePhase.observation_emission,
    phase_realization: RUNTIME_MEDIATED,
    post_state_digest: base.postStateDigest,
    action_result: base.actionResult,
    temporal_contexts: temporal,
    execution_scope_ref: executionScopeRef,
    execution_generation: executionGeneration,
  };
  const context = base.toolContext;
  // Added last, in place: copying each event to add the member made building, chaining and packing
  // a triple about a third dearer.
  if (context !== undefined) {
    attempted.invocation_tool_context = context;
    transition.invocation_tool_context = context;
    observed.invocation_tool_context = context;
  }
  return [attempted, transition, observed];
}

/** A draft event while `triple` builds it (its tool context is added last). */
type Draft = { -readonly [K in keyof HistoryEventDraft]: HistoryEventDraft[K] };

interface ResultFields {
  readonly status: string;
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly failureClass?: string | undefined;
  readonly observations?: readonly string[] | undefined;
  readonly evidenceRefs?: readonly string[] | undefined;
}

/** RAES's full result; like RAES's recorded history, it leaves out absent values and empty lists. */
function wireResult(invocation: InvocationRecord, r: ResultFields): WireActionResult {
  return {
    status: r.status,
    participant_address: invocation.participantAddress,
    episode_id: invocation.episodeId,
    action_instance_id: r.actionInstanceId,
    action_contract_address: r.actionContractAddress,
    observation_point: invocation.observationPoint,
    ...(r.failureClass === undefined ? {} : { failure_class: r.failureClass }),
    ...(r.observations?.length ? { observations: [...r.observations] } : {}),
    ...(r.evidenceRefs?.length ? { evidence_refs: [...r.evidenceRefs] } : {}),
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

/**
 * The three events of one settled tool action, stamped when it was admitted, dispatched (settled, when
 * it never was) and settled.
 */
export function toolActionTriple(
  frame: EventFrame,
  action: ToolActionRecord,
  invocation: InvocationRecord,
): HistoryEventDraft[] {
  const settlement = action.settlement ?? "indeterminate";
  const actionResult = wireResult(invocation, {
    status: RESULT_STATUS[settlement],
    actionInstanceId: action.id,
    actionContractAddress: action.request.actionContractAddress,
    failureClass: action.failureClass,
    evidenceRefs: action.evidenceRefs,
  });
  // A recovered action was never seen to settle: its observation is emitted when recovery settled it.
  const settledAt = action.settledAt ?? action.recoveredAt ?? action.updatedAt;
  return triple(frame, invocation, {
    actionInstanceId: action.id,
    actionContractAddress: action.request.actionContractAddress,
    observationBoundaryAddress: action.request.observationBoundaryAddress,
    postStateDigest: canonicalDigest({
      action_instance_id: action.id,
      request_digest: action.requestDigest,
      action_result: actionResult,
    }),
    observationStatus:
      settlement === "indeterminate" ? ObservationStatus.orphaned_action : ObservationStatus.terminal,
    actionResult,
    times: [action.admittedAt, action.dispatchedAt ?? settledAt, settledAt],
    toolContext: invocationToolContext(action, invocation),
  });
}

/** The three events of the outer invocation, stamped at its start, then its end, then its end. */
export function outerTriple(
  frame: EventFrame,
  invocation: InvocationRecord,
  result: OuterResult,
): HistoryEventDraft[] {
  const endedAt = invocation.endedAt ?? invocation.updatedAt;
  return triple(frame, invocation, {
    actionInstanceId: invocation.id,
    actionContractAddress: invocation.actionContractAddress,
    observationBoundaryAddress: invocation.observationBoundaryAddress,
    postStateDigest: result.postStateDigest,
    observationStatus: ObservationStatus.terminal,
    actionResult: wireResult(invocation, {
      status: result.status,
      actionInstanceId: invocation.id,
      actionContractAddress: invocation.actionContractAddress,
      failureClass: result.failureClass,
      observations: result.observations,
      evidenceRefs: result.evidenceRefs,
    }),
    times: [invocation.startedAt, endedAt, endedAt],
  });
}

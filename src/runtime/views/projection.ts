import type { HistoryEvent, TemporalContext, WireActionResult } from "../../records/index.js";
import type { ViewActionResult, ViewBehaviorEvent, ViewTemporalContext } from "./types.js";

function temporalContext(c: TemporalContext): ViewTemporalContext {
  const wide = c as TemporalContext & {
    backend_disclosure_refs?: readonly string[];
    replay_boundary?: string;
  };
  return {
    temporal_contract_id: c.temporal_contract_id,
    time_domain: c.time_domain,
    clock_authority: c.clock_authority,
    event_points: [...c.event_points],
    observation_point: c.observation_point,
    backend_disclosure_refs: [...(wide.backend_disclosure_refs ?? [])],
    reset_boundary: c.reset_boundary ?? null,
    replay_boundary: wide.replay_boundary ?? null,
  };
}

function actionResult(r: WireActionResult): ViewActionResult {
  return {
    status: r.status,
    participant_address: r.participant_address,
    episode_id: r.episode_id,
    action_instance_id: r.action_instance_id,
    action_contract_address: r.action_contract_address,
    observation_point: r.observation_point,
    preconditions: [],
    effects: [],
    failure_class: r.failure_class ?? null,
    observations: [...(r.observations ?? [])],
    resource_measurements: [],
    evidence_refs: [...(r.evidence_refs ?? [])],
    diagnostics: [],
  };
}

/**
 * One stored history event as RAES's history view writes it: scope fields (participant, episode) and
 * raes-ts's store fields (`event_id`, `sequence`, `chain_digest`, execution scope) projected away, every
 * field of RAES's event model present with its default. A tool action's event keeps raes-ts's own
 * `invocation_tool_context`.
 */
export function viewBehaviorEvent(e: HistoryEvent): ViewBehaviorEvent {
  return {
    event_type: e.event_type,
    timestamp: e.timestamp,
    action_instance_id: e.action_instance_id,
    action_contract_address: e.action_contract_address ?? null,
    observation_boundary_address: e.observation_boundary_address ?? null,
    observation_status: e.observation_status ?? null,
    actor_provenance: e.actor_provenance ?? null,
    lifecycle_phase: e.lifecycle_phase ?? null,
    phase_realization: e.phase_realization ?? null,
    admission_disposition: e.admission_disposition ?? null,
    operation_ref: null,
    operation_state: null,
    state_transition_kind: e.state_transition_kind ?? null,
    post_state_digest: e.post_state_digest ?? null,
    joint_action_set_id: null,
    realized_order: null,
    interaction_class: null,
    interaction_ref: null,
    shared_state_refs: [],
    action_result: e.action_result ? actionResult(e.action_result) : null,
    attribution_edges: [],
    outcome_interpretations: [],
    temporal_contexts: e.temporal_contexts.map(temporalContext),
    activity_provenance: e.activity_provenance ?? null,
    details: { visible_refs: [], disclosed_refs: [], evidence_refs: [] },
    ...(e.invocation_tool_context === undefined
      ? {}
      : { invocation_tool_context: e.invocation_tool_context }),
  };
}

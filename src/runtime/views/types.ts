import type {
  ActivityProvenance,
  InvocationToolContext,
  ObservationStatus,
  ParticipantExecutionServiceState,
} from "../../records/index.js";

// RAES's participant view carriers (API-408), field for field as RAES's control plane answers them: every
// field present, null or empty when unset (docs/raes-mapping.md#participant-views).

/** RAES's `source_snapshot_ref` of a view read from the store as it stands. */
export const CURRENT_SNAPSHOT_REF = "runtime.snapshot.current";
/** RAES's episode state schema version. */
export const EPISODE_STATE_SCHEMA_VERSION = "participant-episode-state/v1";

/** How complete a history view is (RAES's values). */
export type ViewCompleteness = "complete" | "truncated" | "filtered";

/** One episode's state, scope-projected (RAES's `ParticipantStatusViewEpisodeStateModel`). */
export interface ViewEpisodeState {
  readonly state_schema_version: typeof EPISODE_STATE_SCHEMA_VERSION;
  readonly sequence_number: number;
  readonly status: string;
  readonly terminal_reason: string | null;
  readonly initialized_at: string;
  readonly updated_at: string;
  readonly terminated_at: string | null;
  readonly last_control_action: string;
  readonly previous_episode_id: string | null;
}

/** One episode history event, scope-projected (RAES's `ParticipantHistoryViewEpisodeEventModel`). */
export interface ViewEpisodeEvent {
  readonly event_type: string;
  readonly timestamp: string;
  readonly sequence_number: number;
  readonly terminal_reason: string | null;
  readonly control_action: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** A temporal context as RAES's view writes it (defaults filled in). */
export interface ViewTemporalContext {
  readonly temporal_contract_id: string;
  readonly time_domain: string;
  readonly clock_authority: string;
  readonly event_points: readonly string[];
  readonly observation_point: string;
  readonly backend_disclosure_refs: readonly string[];
  readonly reset_boundary: string | null;
  readonly replay_boundary: string | null;
}

/** An action result as RAES's view writes it (defaults filled in). */
export interface ViewActionResult {
  readonly status: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string;
  readonly observation_point: string;
  readonly preconditions: readonly unknown[];
  readonly effects: readonly unknown[];
  readonly failure_class: string | null;
  readonly observations: readonly string[];
  readonly resource_measurements: readonly unknown[];
  readonly evidence_refs: readonly string[];
  readonly diagnostics: readonly string[];
}

/** One behavior history event, scope-projected (RAES's `ParticipantHistoryViewBehaviorEventModel`). */
export interface ViewBehaviorEvent {
  readonly event_type: string;
  readonly timestamp: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string | null;
  readonly observation_boundary_address: string | null;
  readonly observation_status: ObservationStatus | null;
  readonly actor_provenance: string | null;
  readonly lifecycle_phase: string | null;
  readonly phase_realization: string | null;
  readonly admission_disposition: string | null;
  readonly operation_ref: string | null;
  readonly operation_state: string | null;
  readonly state_transition_kind: string | null;
  readonly post_state_digest: string | null;
  readonly joint_action_set_id: string | null;
  readonly realized_order: number | null;
  readonly interaction_class: string | null;
  readonly interaction_ref: string | null;
  readonly shared_state_refs: readonly string[];
  readonly action_result: ViewActionResult | null;
  readonly attribution_edges: readonly unknown[];
  readonly outcome_interpretations: readonly unknown[];
  readonly temporal_contexts: readonly ViewTemporalContext[];
  readonly activity_provenance: ActivityProvenance | null;
  readonly details: {
    readonly visible_refs: readonly string[];
    readonly disclosed_refs: readonly string[];
    readonly evidence_refs: readonly string[];
  };
  /** raes-ts's own, on a tool action's events only (RAES has no tool-action events). */
  readonly invocation_tool_context?: InvocationToolContext;
}

/** RAES's service health values. */
export type ServiceHealth = "healthy" | "degraded" | "unhealthy" | "unknown";

/**
 * raes-ts's own field of the status view: the participant's stored execution-service readback, RAES's
 * `participant-execution-service-state/v1` field for field, with `health` and `pacing_deviation_refs`
 * joined from the stored pacing deviations. RAES reads this from its service-state readback; its status
 * view does not carry it.
 */
export type ViewExecutionService = ParticipantExecutionServiceState;

/** RAES's participant status view. */
export interface ParticipantStatusView {
  readonly view_id: string;
  readonly participant_address: string;
  readonly episode_id: string | null;
  readonly generated_at: string;
  readonly source_snapshot_ref: string;
  readonly episode_state: ViewEpisodeState | null;
  readonly open_operation_refs: readonly string[];
  readonly visibility_projection_ref: string;
  readonly marking_definition_refs: readonly string[];
  readonly redaction_policy_ref: string | null;
  /** raes-ts's own: see `ViewExecutionService`. */
  readonly execution_services: readonly ViewExecutionService[];
}

/** RAES's participant history view. */
export interface ParticipantHistoryView {
  readonly view_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly generated_at: string;
  readonly source_snapshot_ref: string;
  readonly episode_history: readonly ViewEpisodeEvent[];
  readonly behavior_history: readonly ViewBehaviorEvent[];
  readonly visibility_projection_ref: string;
  readonly redaction_policy_ref: string | null;
  readonly completeness: ViewCompleteness;
  readonly completeness_basis: string | null;
  readonly marking_definition_refs: readonly string[];
}

/** RAES's participant context view (a derived view relation over the current snapshot). */
export interface ParticipantContextView {
  readonly view_id: string;
  readonly participant_address: string;
  readonly episode_id: string | null;
  readonly generated_at: string;
  readonly source_snapshot_ref: string;
  readonly view_ref: string;
  readonly meaning_ref: string;
  readonly participant_scope: "participant_local";
  readonly audience_scope: "participant_visible";
  readonly observation_point: string;
  readonly derived_from_refs: readonly string[];
  readonly source_layers: readonly {
    readonly source_id: string;
    readonly source_layer: string;
    readonly ref: string;
    readonly temporal_relation: string;
    readonly observation_point: string;
    readonly freshness_basis_ref: string | null;
    readonly evidence_refs: readonly string[];
    readonly provenance_refs: readonly string[];
  }[];
  readonly transformation: {
    readonly transformation_rule_ref: string;
    readonly description: string;
    readonly input_source_ids: readonly string[];
    readonly output_semantics_ref: string;
  };
  readonly comparability: {
    readonly comparability_class: string;
    readonly comparison_basis_ref: string;
    readonly backend_disclosure_refs: readonly string[];
    readonly limitations: readonly string[];
  };
  readonly evidence_refs: readonly string[];
  readonly provenance_refs: readonly string[];
  readonly semantic_limitations: readonly string[];
  readonly derivation_basis_ref: string | null;
  readonly payload_ref: string | null;
  readonly visibility_projection_ref: string;
  readonly marking_definition_refs: readonly string[];
  readonly redaction_policy_ref: string | null;
}

/** Options of a context view (RAES's query parameters). */
export interface ContextViewOptions {
  /** The governed view reference the context is derived under. */
  readonly viewRef: string;
  readonly episodeId?: string;
  readonly derivationBasisRef?: string;
  readonly payloadRef?: string;
  readonly derivedFromRefs?: readonly string[];
}

/**
 * A v1 or v2 scheduler's state under RAES's names (RAES's `ParticipantAutonomousExecutionStateModel`):
 * `next_tick` is the tick the next attempt is due at, `attempted_actions` the attempts of the segment.
 * v2 states add the continuation's fields.
 */
export interface AutonomousExecutionState {
  readonly policy_address: string;
  readonly policy_digest: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly participant_implementation_ref: string;
  readonly clock_address: string;
  readonly time_segment: number;
  readonly lifecycle_state: "running" | "paused" | "completed" | "failed";
  readonly next_tick: number;
  readonly next_action_index: number;
  readonly attempted_actions: number;
  readonly succeeded_actions: number;
  readonly failed_actions: number;
  readonly in_flight: number;
  readonly last_action_instance_id: string | null;
  readonly [v2Field: string]: unknown;
}

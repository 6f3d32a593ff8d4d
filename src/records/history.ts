/** The three RAES behavior history event types. */
export const HistoryEventType = {
  /** The action was attempted. */
  action_attempted: "action_attempted",
  /** The participant's state transition was committed. */
  state_transition_recorded: "state_transition_recorded",
  /** The terminal observation of the action was emitted. */
  observation_emitted: "observation_emitted",
} as const;
/** A behavior history event type. */
export type HistoryEventType = (typeof HistoryEventType)[keyof typeof HistoryEventType];

/** RAES observation statuses. */
export const ObservationStatus = {
  /** The action reached a terminal, known observation. */
  terminal: "terminal",
  /** The action may have had effects that were never observed. */
  orphaned_action: "orphaned_action",
} as const;
/** An observation status. */
export type ObservationStatus = (typeof ObservationStatus)[keyof typeof ObservationStatus];

/** The `invocation_tool_context` every tool-action event carries. */
export interface InvocationToolContext {
  readonly invocation_action_instance_id: string;
  readonly invocation_action_contract_address: string;
  readonly tool_affordance_address: string;
  readonly tool_call_id: string;
  readonly admission_ordinal: number;
  readonly settlement: string;
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
}

/** RAES's temporal context of an event: the shared-time contract, its clock and the observation point. */
export interface TemporalContext {
  readonly temporal_contract_id: string;
  readonly time_domain: string;
  readonly clock_authority: string;
  readonly event_points: readonly string[];
  readonly observation_point: string;
  readonly reset_boundary: string;
}

/** RAES's full action result, carried by `observation_emitted`; empty lists are left out, as RAES writes them. */
export interface WireActionResult {
  readonly status: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string;
  readonly observation_point: string;
  readonly failure_class?: string;
  readonly observations?: readonly string[];
  readonly evidence_refs?: readonly string[];
}

/**
 * A behavior history event as written, before the store assigns its sequence. Wire names are snake_case.
 * RAES's fields come with RAES's values, on the events where RAES writes them; `event_id`,
 * `execution_scope_ref`, `execution_generation`, `invocation_tool_context` and `activity_provenance`
 * are raes-ts's own.
 */
export interface HistoryEventDraft {
  readonly event_id: string;
  readonly event_type: HistoryEventType;
  readonly timestamp: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string;
  /** `action_attempted` only: `participant-implementation:<name>@<version>`. */
  readonly actor_provenance?: string;
  /** `observation_emitted` only. */
  readonly observation_boundary_address?: string;
  readonly observation_status?: ObservationStatus;
  readonly lifecycle_phase: string;
  readonly phase_realization: string;
  /** `action_attempted` only. */
  readonly admission_disposition?: string;
  /** `state_transition_recorded` only. */
  readonly state_transition_kind?: string;
  /** `state_transition_recorded` and `observation_emitted`. */
  readonly post_state_digest?: string;
  readonly action_result?: WireActionResult;
  readonly temporal_contexts: readonly TemporalContext[];
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
  readonly invocation_tool_context?: InvocationToolContext;
  /** v2 only: RAES's safe occurrence provenance of the attempt the event belongs to. */
  readonly activity_provenance?: ActivityProvenance;
}

/** The public address of a v2 selection draw (no key material). */
export interface ActivityRandomAddress {
  readonly namespace: string;
  readonly policy_address: string;
  readonly participant_address: string;
  readonly time_segment: number;
  readonly occurrence_ordinal: number;
  readonly draw_purpose: string;
  readonly local_coordinate: number;
}

/** RAES's `activity_provenance` of a v2 event: occurrence, attempt, candidate, timing and stream identity. */
export interface ActivityProvenance {
  readonly policy_address: string;
  readonly policy_profile: string;
  readonly occurrence_id: string;
  readonly attempt_id: string;
  readonly predecessor_attempt_id: string | null;
  readonly candidate_id: string;
  readonly dependency_candidate_ids: readonly string[];
  readonly timing_tick: number;
  readonly timing_disposition: string;
  readonly burst_position: number;
  readonly random_control_id: string;
  readonly random_profile_id: string;
  readonly random_address: ActivityRandomAddress;
  readonly terminal_outcome: string;
}

/** A committed behavior history event; `sequence` is its commit order. */
export interface HistoryEvent extends HistoryEventDraft {
  readonly sequence: number;
  /**
   * raes-ts's own: the event's link in its participant's hash chain (docs/evidence-format.md),
   * computed by the store in the transaction that appends the event.
   */
  readonly chain_digest?: string;
}

/** RAES lifecycle phases used by the three events. */
export const LifecyclePhase = {
  /** The action was selected and admitted (every `action_attempted`). */
  selection_or_admission: "selection_or_admission",
  /** The participant's state change was committed. */
  state_update_commit: "state_update_commit",
  /** The terminal observation was emitted. */
  observation_emission: "observation_emission",
} as const;
/** A RAES lifecycle phase. */
export type LifecyclePhase = (typeof LifecyclePhase)[keyof typeof LifecyclePhase];

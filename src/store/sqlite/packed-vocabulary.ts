/**
 * The fixed vocabulary of packed history bodies, format 1 (schema step 11). A stored body refers to
 * these lists by position, so they are never edited once released: a new entry, or a new order of
 * keys, needs a new format number with its own lists.
 */

const EVENT =
  "event_id,event_type,timestamp,participant_address,episode_id,action_instance_id,action_contract_address";
const TAIL = "temporal_contexts,execution_scope_ref,execution_generation";
const ATTEMPTED = `${EVENT},actor_provenance,lifecycle_phase,phase_realization,admission_disposition,${TAIL}`;
const TRANSITION = `${EVENT},lifecycle_phase,phase_realization,state_transition_kind,post_state_digest,${TAIL}`;
const OBSERVED = `${EVENT},observation_boundary_address,observation_status,lifecycle_phase,phase_realization,post_state_digest,action_result,${TAIL}`;
const RESULT =
  "status,participant_address,episode_id,action_instance_id,action_contract_address,observation_point";

/** Key lists (in the order events are built) an object with exactly those keys is stored without. */
export const SHAPES_1: readonly (readonly string[])[] = [
  ...[ATTEMPTED, TRANSITION, OBSERVED].flatMap((keys) => [
    keys,
    `${keys},invocation_tool_context`,
    `${keys},activity_provenance`,
    `${keys},invocation_tool_context,activity_provenance`,
  ]),
  "temporal_contract_id,time_domain,clock_authority,event_points,observation_point,reset_boundary",
  "invocation_action_instance_id,invocation_action_contract_address,tool_affordance_address,tool_call_id,admission_ordinal,settlement,execution_scope_ref,execution_generation",
  RESULT,
  `${RESULT},failure_class`,
  `${RESULT},observations`,
  `${RESULT},evidence_refs`,
  `${RESULT},failure_class,observations`,
  `${RESULT},failure_class,evidence_refs`,
  `${RESULT},observations,evidence_refs`,
  `${RESULT},failure_class,observations,evidence_refs`,
  "policy_address,policy_profile,occurrence_id,attempt_id,predecessor_attempt_id,candidate_id,dependency_candidate_ids,timing_tick,timing_disposition,burst_position,random_control_id,random_profile_id,random_address,terminal_outcome",
  "namespace,policy_address,participant_address,time_segment,occurrence_ordinal,draw_purpose,local_coordinate",
].map((keys) => keys.split(","));

/** Strings most events hold, each stored as a reference instead. */
export const STRINGS_1: readonly string[] = [
  "action_attempted",
  "state_transition_recorded",
  "observation_emitted",
  "selection_or_admission",
  "state_update_commit",
  "observation_emission",
  "runtime_mediated",
  "admitted",
  "participant_action_admitted",
  "terminal",
  "orphaned_action",
  "simulation_time",
  "submit",
  "start",
  "end",
  "observed",
  "succeeded",
  "failed",
  "withheld",
  "indeterminate",
  "unknown",
];

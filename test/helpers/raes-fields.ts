/** RAES's string fields on each history event type (raes-v1-outer-triple.json), besides the timestamp. */
export const RAES_STRING_FIELDS = {
  action_attempted: [
    "event_type",
    "participant_address",
    "episode_id",
    "action_instance_id",
    "action_contract_address",
    "actor_provenance",
    "lifecycle_phase",
    "phase_realization",
    "admission_disposition",
  ],
  state_transition_recorded: [
    "event_type",
    "participant_address",
    "episode_id",
    "action_instance_id",
    "action_contract_address",
    "lifecycle_phase",
    "phase_realization",
    "state_transition_kind",
    "post_state_digest",
  ],
  observation_emitted: [
    "event_type",
    "participant_address",
    "episode_id",
    "action_instance_id",
    "action_contract_address",
    "observation_boundary_address",
    "observation_status",
    "lifecycle_phase",
    "phase_realization",
    "post_state_digest",
  ],
} as const;

/** The string fields RAES writes on an event of this type. */
export function raesStringFields(eventType: string): readonly string[] {
  return RAES_STRING_FIELDS[eventType as keyof typeof RAES_STRING_FIELDS] ?? ["event_type"];
}

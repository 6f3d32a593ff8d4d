/** The fixed refusal codes of the invocation tool-action port (participant-invocation-tool-actions/v1). */
export const ParticipantToolActionRefusal = {
  /** The request is not a closed, well-typed shape with bounded ids and 1 to 64 targets. */
  request_invalid: "request_invalid",
  /** The port is attached but its invocation has not started dispatch yet. */
  invocation_inactive: "invocation_inactive",
  /** The invocation has returned or thrown; the port accepts nothing more. */
  invocation_closed: "invocation_closed",
  /** The tool_call_id was already admitted with a different request. */
  request_conflict: "request_conflict",
  /** Participant, episode, implementation, invocation or scope differ from the port's. */
  identity_mismatch: "identity_mismatch",
  /** The execution generation differs from the port's. */
  generation_mismatch: "generation_mismatch",
  /** Not exactly one compiled affordance binding matches affordance, action and participant. */
  affordance_unbound: "affordance_unbound",
  /** The observation boundary is not one of the binding's boundaries. */
  boundary_outside_binding: "boundary_outside_binding",
  /** A target is not one of the binding's targets. */
  target_outside_binding: "target_outside_binding",
  /** The action contract has a shared-time binding. */
  shared_time_bound: "shared_time_bound",
  /** No manifest execution-binding offer covers action, implementation and targets. */
  no_execution_offer: "no_execution_offer",
  /** More than one manifest execution-binding offer covers the request. */
  ambiguous_execution_offer: "ambiguous_execution_offer",
  /** The autonomous policy uses participant-autonomous-execution/v3. */
  policy_profile_unsupported: "policy_profile_unsupported",
  /** A participant-crossing policy is installed on the runtime manager. */
  crossing_policy_installed: "crossing_policy_installed",
  /** The per-invocation total tool-action limit is used up. */
  action_limit_exhausted: "action_limit_exhausted",
  /** The per-invocation limit on admitted-but-unsettled actions is reached. */
  concurrency_limit_exhausted: "concurrency_limit_exhausted",
  /** The control-plane store could not durably record the change. */
  ledger_unavailable: "ledger_unavailable",
  /** The action id was never admitted by this invocation. */
  unknown_action: "unknown_action",
  /** The call is not allowed in the action's current state. */
  state_conflict: "state_conflict",
  /** The outcome's identity, status, observation point or evidence is not acceptable. */
  outcome_invalid: "outcome_invalid",
} as const;
/** A refusal code of the invocation tool-action port. */
export type ParticipantToolActionRefusal =
  (typeof ParticipantToolActionRefusal)[keyof typeof ParticipantToolActionRefusal];

/** The semantic version of the composition this package implements. */
export const INVOCATION_TOOL_ACTIONS_V1 = "participant-invocation-tool-actions/v1";

export { ToolActionPhase, ToolActionSettlement } from "../records/index.js";

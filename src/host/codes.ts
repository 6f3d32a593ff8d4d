/** Why host mode answered a session's tool call itself: no invocation of the participant runs for it. */
export const HostCode = {
  /** The participant's scheduler is stopped (an indeterminate tool action, a harness error): resolve, then resume. */
  scheduler_stopped: "scheduler_stopped",
  /** The participant's scheduler has made every attempt its policy allows; nothing more runs on this store. */
  scheduler_completed: "scheduler_completed",
  /** Another live runtime holds the participant's scheduler lease, so this gateway may not run it. */
  participant_owned: "host.participant-owned",
  /** Advancing the policy clock failed (the store, a lost lease); the text says why. */
  step_failed: "host.step-failed",
  /** The policy clock was advanced as far as host mode goes for one session and no attempt came due. */
  no_due_attempt: "host.no-due-attempt",
  /** The invocation has no tool-action port (the participant has no tool affordance binding). */
  no_tool_actions: "host.no-tool-actions",
  /** A call arrived after its session ended (idle, the offer's timeout, shutdown); a new session gets a new invocation. */
  session_ended: "host.session-ended",
} as const;
/** A host-mode code. */
export type HostCode = (typeof HostCode)[keyof typeof HostCode];

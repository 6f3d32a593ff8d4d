import { ParticipantToolActionRefusal, ToolActionPhase, ToolActionSettlement } from "./codes.js";
import type { ToolOutcomeStatus } from "./types.js";

/** A tool action's position in `admitted → dispatched → settled`. */
export interface SettlementState {
  readonly phase: ToolActionPhase;
  readonly settlement?: ToolActionSettlement;
}

/** Everything that can happen to an admitted tool action. */
export type SettlementEvent =
  | { readonly type: "dispatch" }
  | { readonly type: "complete"; readonly status: ToolOutcomeStatus }
  | { readonly type: "report_unknown" }
  | { readonly type: "cancel" }
  | { readonly type: "close" };

/** The result of applying an event: the next state, or the refusal and no change. */
export type TransitionResult =
  | { readonly ok: true; readonly state: SettlementState }
  | { readonly ok: false; readonly refusal: ParticipantToolActionRefusal };

/** The state every admitted action starts in. */
export const ADMITTED: SettlementState = Object.freeze({ phase: ToolActionPhase.admitted });

const conflict: TransitionResult = Object.freeze({
  ok: false,
  refusal: ParticipantToolActionRefusal.state_conflict,
});

function settle(settlement: ToolActionSettlement): TransitionResult {
  return { ok: true, state: { phase: ToolActionPhase.settled, settlement } };
}

/** The pure settlement state machine of participant-invocation-tool-actions/v1. */
export function transition(state: SettlementState, event: SettlementEvent): TransitionResult {
  switch (state.phase) {
    case ToolActionPhase.admitted:
      if (event.type === "dispatch") return { ok: true, state: { phase: ToolActionPhase.dispatched } };
      if (event.type === "cancel" || event.type === "close") return settle(ToolActionSettlement.withheld);
      return conflict;
    case ToolActionPhase.dispatched:
      if (event.type === "complete") return settle(event.status);
      if (event.type === "report_unknown" || event.type === "close")
        return settle(ToolActionSettlement.indeterminate);
      return conflict;
    case ToolActionPhase.settled:
      return event.type === "close" ? { ok: true, state } : conflict;
  }
}

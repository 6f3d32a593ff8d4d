import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADMITTED, type SettlementEvent, type SettlementState, transition } from "../../src/port/index.js";

const EVENTS: readonly SettlementEvent[] = [
  { type: "dispatch" },
  { type: "complete", status: "succeeded" },
  { type: "complete", status: "failed" },
  { type: "complete", status: "partial_success" },
  { type: "report_unknown" },
  { type: "cancel" },
  { type: "close" },
];

const DISPATCHED: SettlementState = { phase: "dispatched" };
const settled = (settlement: NonNullable<SettlementState["settlement"]>): SettlementState => ({
  phase: "settled",
  settlement,
});
const SETTLED_STATES = (["succeeded", "failed", "partial_success", "withheld", "indeterminate"] as const).map(
  settled,
);

function label(event: SettlementEvent): string {
  return event.type === "complete" ? `complete(${event.status})` : event.type;
}

/** The specification table, written independently of the implementation's switch. */
function expected(state: SettlementState, event: SettlementEvent): SettlementState | "state_conflict" {
  if (state.phase === "admitted") {
    if (event.type === "dispatch") return DISPATCHED;
    if (event.type === "cancel" || event.type === "close") return settled("withheld");
    return "state_conflict";
  }
  if (state.phase === "dispatched") {
    if (event.type === "complete") return settled(event.status);
    if (event.type === "report_unknown" || event.type === "close") return settled("indeterminate");
    return "state_conflict";
  }
  return event.type === "close" ? state : "state_conflict";
}

describe("settlement transition(state, event)", () => {
  for (const state of [ADMITTED, DISPATCHED, ...SETTLED_STATES]) {
    for (const event of EVENTS) {
      const name = `${state.phase}${state.settlement ? `/${state.settlement}` : ""} + ${label(event)}`;
      it(name, () => {
        const result = transition(state, event);
        const want = expected(state, event);
        if (want === "state_conflict") assert.deepEqual(result, { ok: false, refusal: "state_conflict" });
        else assert.deepEqual(result, { ok: true, state: want });
      });
    }
  }

  it("never settles twice: every event after a settlement but close is a conflict", () => {
    for (const state of SETTLED_STATES) {
      const moves = EVENTS.filter((e) => e.type !== "close").map((e) => transition(state, e).ok);
      assert.deepEqual(
        moves,
        moves.map(() => false),
      );
    }
  });

  it("is pure: the input state is not modified", () => {
    const state = { phase: "admitted" as const };
    const frozen = Object.freeze({ ...state });
    for (const event of EVENTS) transition(frozen, event);
    assert.deepEqual(frozen, state);
  });
});

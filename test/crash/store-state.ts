import assert from "node:assert/strict";
import type { HistoryEvent } from "../../src/index.js";
import type {
  ControlPlaneStore,
  InvocationRecord,
  SchedulerRecord,
  ToolActionRecord,
} from "../../src/store/index.js";

/** Everything durable a restart may touch, read through the store's own interface. */
export interface StoreState {
  readonly schedulers: SchedulerRecord[];
  readonly invocations: InvocationRecord[];
  readonly toolActions: ToolActionRecord[];
  readonly events: HistoryEvent[];
}

const EVENT_TYPES = ["action_attempted", "state_transition_recorded", "observation_emitted"] as const;

/** The three event ids of one action, in the order history must hold them. */
export const tripleIds = (actionId: string) => EVENT_TYPES.map((type) => `${actionId}#${type}`);

/** Reads every scheduler, every invocation any scheduler ever opened, every tool action and all history. */
export async function readStoreState(store: ControlPlaneStore): Promise<StoreState> {
  const schedulers = await store.listSchedulers();
  const invocations: InvocationRecord[] = [];
  for (const s of schedulers) {
    for (let n = 0; n < s.nextOrdinal; n += 1) {
      const invocation = await store.getInvocation(`${s.policyAddress}:${s.participantAddress}:${n}`);
      assert.ok(invocation, `scheduler ${s.participantAddress} opened invocation ${n}, which is missing`);
      invocations.push(invocation);
    }
  }
  const open = await store.listOpenInvocations();
  for (const o of open)
    assert.ok(
      invocations.some((i) => i.id === o.id),
      `open invocation ${o.id} has no scheduler ordinal`,
    );
  const ordinal = new Map(invocations.map((i) => [i.id, i.ordinal]));
  const toolActions = (await store.listToolActions({})).sort(
    (a, b) =>
      (ordinal.get(a.invocationId) ?? -1) - (ordinal.get(b.invocationId) ?? -1) ||
      a.admissionOrdinal - b.admissionOrdinal,
  );
  return { schedulers, invocations, toolActions, events: await store.listEvents() };
}

/** The tool actions of one invocation, in admission order. */
export function actionsOf(state: StoreState, invocationId: string): ToolActionRecord[] {
  return state.toolActions.filter((a) => a.invocationId === invocationId);
}

/**
 * History must be exactly, with sequence numbers 1..n: for every closed invocation in ordinal
 * order, the triple of each of its tool actions in admission order, then its own triple unless
 * it was interrupted (an interrupted invocation's attempt is consumed without an outer triple).
 */
export function assertHistoryExact(state: StoreState, interrupted: ReadonlySet<string>): void {
  const { events } = state;
  assert.deepEqual(
    events.map((e) => e.sequence),
    events.map((_, i) => i + 1),
    "history sequence numbers have a gap or a duplicate",
  );
  const ids = events.map((e) => e.event_id);
  assert.equal(new Set(ids).size, ids.length, "history holds an event twice");
  const expected: string[] = [];
  for (const invocation of [...state.invocations].sort((a, b) => a.ordinal - b.ordinal)) {
    if (invocation.state === "running") continue;
    for (const action of actionsOf(state, invocation.id)) expected.push(...tripleIds(action.id));
    if (!interrupted.has(invocation.id)) expected.push(...tripleIds(invocation.id));
  }
  assert.deepEqual(
    ids,
    expected,
    "history is not the tool triples in admission order before each outer triple",
  );
  for (const action of state.toolActions) {
    const own = events.filter((e) => e.action_instance_id === action.id);
    assert.equal(own.length, 3, `${action.id} must have exactly three events`);
    for (const event of own) {
      assert.equal(
        event.invocation_tool_context?.settlement,
        action.settlement,
        `${event.event_id} settlement`,
      );
      assert.equal(event.invocation_tool_context?.admission_ordinal, action.admissionOrdinal);
      assert.equal(event.invocation_tool_context?.invocation_action_instance_id, action.invocationId);
    }
    const observed = own[2];
    const orphaned = action.settlement === "indeterminate";
    assert.equal(
      observed?.observation_status,
      orphaned ? "orphaned_action" : "terminal",
      `${action.id} observation`,
    );
    assert.equal(
      observed?.action_result?.status,
      orphaned ? "unknown" : action.settlement,
      `${action.id} observed result status`,
    );
  }
}

/** Effect lines must be unique and belong only to actions the store recorded as dispatched. */
export function assertEffectsOnlyOnce(effects: readonly string[], dispatchedIds: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const id of effects) {
    assert.ok(!seen.has(id), `the effect of ${id} ran twice`);
    seen.add(id);
    assert.ok(dispatchedIds.has(id), `an effect ran for ${id}, which the store never recorded as dispatched`);
  }
}

/** Ids of actions that reached dispatch according to the store (dispatched, or settled after running). */
export function dispatchedIds(state: StoreState): Set<string> {
  return new Set(
    state.toolActions
      .filter((a) => a.phase === "dispatched" || (a.phase === "settled" && a.settlement !== "withheld"))
      .map((a) => a.id),
  );
}

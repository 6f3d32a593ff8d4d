/**
 * The scheduler bench's floor: the durable writes one step must make, straight through the same
 * store and fenced as the manager fences them, with none of the scheduling around them. An action
 * of the no-op variant opens an invocation and commits it with its three events; with one tool
 * action it also inserts and dispatches the action, and commits it settled with six events.
 */
import type { HistoryEventDraft } from "../../src/history/index.js";
import type { RuntimeModel } from "../../src/index.js";
import { type ControlPlaneStore, openControlPlaneStore } from "../../src/store/index.js";
import { type Block, type BlockTime, exampleRecords, historyTemplates } from "../shared/index.js";

/** A floor on its own store: `block(k)` runs k actions' writes as one block. */
export interface SchedulerFloor {
  block(actions: number): Block;
  close(): Promise<void>;
}

/** Opens the floor on a fresh store at `url`. */
export async function openSchedulerFloor(
  url: string,
  model: RuntimeModel,
  withTool: boolean,
): Promise<SchedulerFloor> {
  const store: ControlPlaneStore = await openControlPlaneStore(url);
  const records = exampleRecords(model);
  const { events } = await historyTemplates(model);
  // The template's six events: the tool action's triple, then the invocation's.
  const kept = withTool ? events : events.slice(3);
  const first = records.scheduler(1);
  const lease = await store.acquireLease(first.participantAddress, "bench-floor", 600_000);
  if (!lease) throw new Error("the floor got no lease");
  const fence = { participantAddress: first.participantAddress, token: lease.token };
  let ordinal = 0;
  const action = async () => {
    ordinal += 1;
    const invocation = records.invocation(ordinal);
    await store.openInvocation(invocation, records.scheduler(ordinal), fence);
    const drafts = kept.map(
      (t) => JSON.parse(t.body.replaceAll("@@N@@", `f${ordinal}`)) as HistoryEventDraft,
    );
    const closed = { ...invocation, state: "succeeded" as const };
    if (!withTool) {
      await store.commitInvocation(
        { invocation: closed, toolActions: [], events: drafts, scheduler: records.scheduler(ordinal + 1) },
        fence,
      );
      return;
    }
    const admitted = records.toolAction(invocation, "admitted");
    await store.insertToolAction(admitted, fence);
    const dispatched = { ...admitted, phase: "dispatched" as const };
    if (!(await store.updateToolAction(dispatched, "admitted", fence)))
      throw new Error("floor dispatch failed");
    const settled = { ...dispatched, phase: "settled" as const, settlement: "succeeded" as const };
    await store.commitInvocation(
      {
        invocation: closed,
        toolActions: [settled],
        events: drafts,
        scheduler: records.scheduler(ordinal + 1),
      },
      fence,
    );
  };
  return {
    block: (actions) => async (): Promise<BlockTime> => {
      const start = performance.now();
      for (let i = 0; i < actions; i += 1) await action();
      return { ms: performance.now() - start, units: actions };
    },
    close: () => store.close(),
  };
}

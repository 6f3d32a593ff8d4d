import assert from "node:assert/strict";
import type { RuntimeManager } from "../../../src/index.js";
import { EXAMPLE } from "../../helpers/example.js";

/** What a vector expects after its invocation closed (the vector file's `then`). */
export interface VectorThen {
  readonly history?: readonly string[];
  readonly history_count?: number;
  readonly settlements?: Readonly<Record<string, string>>;
  readonly operations?: Readonly<Record<string, string>>;
  readonly observation?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly scheduler?: string;
  readonly note?: string;
}

/** Checks a vector's `then` against the manager's history, operations and schedulers. */
export async function checkThen(
  manager: RuntimeManager,
  invocationId: string,
  ids: Map<string, string>,
  then: VectorThen,
) {
  const labelOf = (actionId: string) =>
    actionId === invocationId ? "outer" : ([...ids].find(([, v]) => v === actionId)?.[0] ?? actionId);
  const events = (await manager.history()).filter(
    (e) =>
      e.action_instance_id === invocationId ||
      e.invocation_tool_context?.invocation_action_instance_id === invocationId,
  );
  const attempted = events.filter((e) => e.event_type === "action_attempted");
  assert.equal(events.length, attempted.length * 3, "every action has exactly three events");
  if (then.history)
    assert.deepEqual(
      attempted.map((e) => labelOf(e.action_instance_id)),
      then.history,
    );
  if (then.history_count !== undefined) assert.equal(attempted.length, then.history_count);
  for (const [label, settlement] of Object.entries(then.settlements ?? {})) {
    const op = await manager.getOperation(ids.get(label) ?? "?");
    assert.equal(op?.settlement, settlement, `settlement of ${label}`);
    const observed = events.find(
      (e) => e.action_instance_id === ids.get(label) && e.event_type === "observation_emitted",
    );
    assert.equal(observed?.invocation_tool_context?.settlement, settlement, `history settlement of ${label}`);
  }
  for (const [label, state] of Object.entries(then.operations ?? {})) {
    const op = await manager.getOperation(label === "outer" ? invocationId : (ids.get(label) ?? "?"));
    assert.equal(op?.state, state, `operation state of ${label}`);
  }
  for (const [label, fields] of Object.entries(then.observation ?? {})) {
    const observed = events.find(
      (e) => e.action_instance_id === ids.get(label) && e.event_type === "observation_emitted",
    );
    assert.equal(observed?.observation_status, fields.observation_status);
    assert.equal(observed?.action_result?.status, fields["action_result.status"]);
  }
  if (then.scheduler) {
    const scheduler = manager.schedulers().find((s) => s.participantAddress === EXAMPLE.participant);
    assert.equal(scheduler?.lifecycle, then.scheduler);
  }
}

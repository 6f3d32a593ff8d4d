import assert from "node:assert/strict";
import {
  openControlPlaneStore,
  RuntimeErrorCode,
  RuntimeManager,
  resolveToolAction,
} from "../../src/index.js";
import type { ToolActionRecord } from "../../src/store/index.js";
import { EffectHarnessRuntime, readEffects } from "../helpers/child-harness.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../helpers/example.js";
import {
  CRASH_OWNER,
  KILLED_CALL_ANNOUNCED,
  KILLED_CALL_EFFECT,
  KILLED_CALL_OUTCOME,
  TOOL_CALLS,
} from "./kill-points.js";
import { type KillRun, killAtPoint } from "./kill-run.js";
import {
  actionsOf,
  assertEffectsOnlyOnce,
  assertHistoryExact,
  dispatchedIds,
  readStoreState,
  type StoreState,
} from "./store-state.js";

const OPERATION_STATE: Readonly<Record<string, string>> = {
  succeeded: "succeeded",
  withheld: "cancelled",
  indeterminate: "indeterminate",
};

/** The restart rules: admitted → withheld, dispatched → indeterminate, a recorded outcome stays. */
function settledByRestartRules(action: ToolActionRecord): string | undefined {
  if (action.phase === "admitted") return "withheld";
  if (action.phase === "dispatched") return "indeterminate";
  return action.settlement;
}

function openManager(url: string, effectFile: string): Promise<RuntimeManager> {
  return RuntimeManager.open({
    model: modelWithAttempts(1_000),
    manifest: exampleManifest(),
    runtime: new EffectHarnessRuntime({
      effectFile,
      toolCalls: TOOL_CALLS,
      refused: (r) => assert.fail(`restarted harness refused: ${JSON.stringify(r)}`),
    }),
    store: url,
    ownerId: CRASH_OWNER,
  });
}

/**
 * Kills a child at one point, restarts on the same store, and checks every restart rule, that
 * recovery is idempotent, that resolution lets the participant resume, and that no effect repeats.
 */
export async function killAndRecover(run: KillRun): Promise<void> {
  const log = await killAtPoint(run);
  assert.deepEqual(log.refused, [], "the crashed harness saw a refusal");
  const interrupted = log.invocations.at(-1);
  assert.ok(interrupted, "the child announced no invocation");
  const killedId = `${interrupted}:tool=${run.call}`;
  assert.deepEqual(
    [log.admitted, log.dispatched, log.completed].map((ids) => ids.includes(killedId)),
    KILLED_CALL_ANNOUNCED[run.point],
    `what the child announced for ${killedId} before dying at ${run.point}`,
  );

  const raw = await openControlPlaneStore(run.url);
  const before = await readStoreState(raw).finally(() => raw.close());
  assert.equal(
    before.invocations.find((i) => i.id === interrupted)?.state,
    "running",
    "the kill must interrupt it",
  );
  const effects = readEffects(run.effectFile);
  assertEffectsOnlyOnce(effects, dispatchedIds(before));

  let manager = await openManager(run.url, run.effectFile);
  try {
    const after = await readStoreState(manager.store);
    for (const id of log.admitted)
      assert.ok(
        after.toolActions.some((a) => a.id === id),
        `admitted ${id} was lost`,
      );
    await assertInterruptedSettled(manager, run, before, after, interrupted, effects);
    assertHistoryExact(after, new Set([interrupted]));

    await manager.close();
    manager = await openManager(run.url, run.effectFile);
    assert.deepEqual(await readStoreState(manager.store), after, "a second restart changed the store");

    await resolveAndContinue(manager, run, after, effects);
    const final = await readStoreState(manager.store);
    assertHistoryExact(final, new Set([interrupted]));
    assertEffectsOnlyOnce(readEffects(run.effectFile), dispatchedIds(final));
  } finally {
    await manager.close();
  }
}

async function assertInterruptedSettled(
  manager: RuntimeManager,
  run: KillRun,
  before: StoreState,
  after: StoreState,
  interrupted: string,
  effects: readonly string[],
): Promise<void> {
  for (const old of before.toolActions.filter((a) => a.invocationId !== interrupted)) {
    assert.deepEqual(
      after.toolActions.find((a) => a.id === old.id),
      old,
      `${old.id} of a closed invocation changed`,
    );
  }
  const actions = actionsOf(after, interrupted);
  const killed = KILLED_CALL_OUTCOME[run.point];
  const expected = Array.from({ length: run.call }, (_, i) =>
    i + 1 < run.call ? "succeeded" : killed,
  ).filter((s) => s !== "absent");
  assert.deepEqual(
    actions.map((a) => [a.id, a.settlement]),
    expected.map((s, i) => [`${interrupted}:tool=${i + 1}`, s]),
    `settlements after a kill at ${run.point} of call ${run.call}`,
  );
  for (const action of actions) {
    const prior = before.toolActions.find((a) => a.id === action.id);
    assert.ok(prior, `${action.id} appeared during recovery`);
    assert.equal(action.settlement, settledByRestartRules(prior), `${action.id} was ${prior.phase}`);
    assert.equal(action.phase, "settled");
    assert.equal((await manager.getOperation(action.id))?.state, OPERATION_STATE[action.settlement ?? ""]);
  }
  const killedId = `${interrupted}:tool=${run.call}`;
  assert.equal(effects.includes(killedId), KILLED_CALL_EFFECT[run.point], `effect line of ${killedId}`);
  for (const a of after.toolActions.filter((x) => x.settlement === "succeeded")) {
    assert.ok(effects.includes(a.id), `${a.id} succeeded without its effect`);
  }
  for (const a of after.toolActions.filter((x) => x.settlement === "withheld")) {
    assert.ok(!effects.includes(a.id), `withheld ${a.id} has an effect`);
  }
  assert.equal(after.invocations.find((i) => i.id === interrupted)?.state, "failed");
  assert.equal((await manager.getOperation(interrupted))?.state, "failed");
  assert.deepEqual(await manager.store.listOpenInvocations(), []);
  assert.ok(
    !after.events.some((e) => e.action_instance_id === interrupted),
    "an interrupted invocation has no outer triple",
  );

  const indeterminate = actions.some((a) => a.settlement === "indeterminate");
  const [scheduler] = manager.schedulers();
  assert.equal(scheduler?.participantAddress, EXAMPLE.participant);
  assert.equal(scheduler?.lifecycle, "stopped");
  // Without an indeterminate action the example's `failure_policy: stop` is what stops it.
  assert.equal(scheduler?.stopReason, indeterminate ? "tool_action_indeterminate" : "failure_policy");
  assert.deepEqual(after.schedulers, [scheduler]);
  assert.equal(
    scheduler?.attempts,
    before.schedulers[0]?.attempts ?? 0,
    "the interrupted attempt stays consumed",
  );
}

async function resolveAndContinue(
  manager: RuntimeManager,
  run: KillRun,
  after: StoreState,
  effects: readonly string[],
): Promise<void> {
  const open = after.toolActions.filter((a) => a.settlement === "indeterminate");
  if (open.length > 0) {
    await assert.rejects(manager.resumeParticipant(EXAMPLE.participant), {
      code: RuntimeErrorCode.unresolved_indeterminate,
    });
  }
  for (const action of open) {
    const resolution = effects.includes(action.id) ? "effect_confirmed" : "effect_absent";
    const operation = await resolveToolAction(manager.store, action.id, {
      resolution,
      note: `crash at ${run.point}`,
    });
    assert.equal(operation.resolution?.resolution, resolution);
  }
  await manager.resumeParticipant(EXAMPLE.participant);
  assert.equal(manager.schedulers()[0]?.lifecycle, "running");

  const { invocations } = await manager.step();
  assert.equal(invocations.length, 1);
  const [next] = invocations;
  assert.equal(next?.state, "succeeded", String(next?.error));
  const known = new Set(after.toolActions.map((a) => a.id));
  assert.equal(next?.toolActions.length, TOOL_CALLS);
  for (const action of next?.toolActions ?? []) {
    assert.ok(!known.has(action.id), `${action.id} reuses an earlier action id`);
    assert.equal(action.settlement, "succeeded");
  }
  const now = readEffects(run.effectFile);
  assert.deepEqual(now.slice(0, effects.length), [...effects], "the effect file was rewritten");
  assert.deepEqual(
    now.slice(effects.length),
    (next?.toolActions ?? []).map((a) => a.id),
    "the new step ran exactly its own new effects",
  );
}

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { resolveToolAction } from "../../../src/operations/index.js";
import {
  type ControlPlaneStore,
  type InvocationCommit,
  MemoryControlPlaneStore,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../../helpers/example.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { inFreshSchema } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";

const dir = mkdtempSync(join(tmpdir(), "raes-close-writes-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A harness whose invocation makes its `calls` on the port, then runs `beforeReturn` with the id they give. */
abstract class PortCalls extends RecordingRuntime {
  beforeReturn: (id: string) => Promise<void> = async () => undefined;

  protected abstract calls(port: InvocationToolActionPort): Promise<string>;

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.attached.find((p) => p.invocationActionInstanceId === request.actionInstanceId);
    if (port === undefined) throw new Error("no port attached");
    await this.beforeReturn(await this.calls(port));
    return super.modelAction(request, snapshot, context);
  }
}

/**
 * Each invocation: one call completed, one reported unknown (settled indeterminate), one admitted and
 * left; then, before returning, `beforeReturn` runs with the indeterminate action's id.
 */
class ThreeCalls extends PortCalls {
  protected async calls(port: InvocationToolActionPort): Promise<string> {
    const ids: string[] = [];
    for (const call of ["done", "unknown", "left"]) {
      const decision = await port.admit(requestFor(port, call));
      if (!decision.admitted) throw new Error(`refused: ${decision.refusal}`);
      ids.push(decision.actionInstanceId);
    }
    const [done, unknown] = ids as [string, string];
    for (const id of [done, unknown]) assert.equal((await port.dispatch(id)).accepted, true);
    assert.equal((await port.complete(done, outcomeFor(port, done))).ok, true);
    assert.equal((await port.reportUnknown(unknown, "the portal did not answer")).ok, true);
    return unknown;
  }
}

/** The operator resolves the indeterminate call while its invocation still runs. */
function resolveWhileRunning(store: ControlPlaneStore): (id: string) => Promise<void> {
  return async (id) => {
    await resolveToolAction(store, id, { resolution: "effect_absent", note: "not in the portal log" });
  };
}

function openManager(store: ControlPlaneStore, runtime: RecordingRuntime): Promise<RuntimeManager> {
  return RuntimeManager.open({ model: modelStartingAt(10, 10), manifest: exampleManifest(), runtime, store });
}

/** Records the tool actions each close hands the store. */
function spied(store: ControlPlaneStore): { store: ControlPlaneStore; written: string[][] } {
  const written: string[][] = [];
  const commit = store.commitInvocation.bind(store);
  store.commitInvocation = (c: InvocationCommit, ...rest) => {
    written.push(c.toolActions.map((a) => `${a.toolCallId}:${a.settlement}`));
    return commit(c, ...rest);
  };
  return { store, written };
}

async function closeOnce(opened: ControlPlaneStore): Promise<void> {
  const { store, written } = spied(opened);
  const runtime = new ThreeCalls();
  runtime.beforeReturn = resolveWhileRunning(store);
  const manager = await openManager(store, runtime);
  try {
    const { invocations } = await manager.step();
    assert.equal(invocations.length, 1);
    const summary = invocations[0];
    assert.deepEqual(
      summary?.toolActions.map((a) => `${a.toolCallId}:${a.settlement}`),
      ["done:succeeded", "unknown:indeterminate", "left:withheld"],
      "the invocation's summary and history name every call",
    );
    assert.deepEqual(written, [["left:withheld"]], "the close writes only what it settled");
    const actions = await store.listToolActions({ participantAddress: EXAMPLE.participant });
    const resolved = actions.find((a) => a.toolCallId === "unknown");
    assert.equal(resolved?.resolution?.resolution, "effect_absent", "the resolution stays");
    assert.deepEqual(
      actions.map((a) => a.phase),
      ["settled", "settled", "settled"],
    );
    const events = await manager.history();
    assert.equal(events.filter((e) => e.event_type === "action_attempted").length, 4);
  } finally {
    await manager.close();
    await opened.close();
  }
}

/**
 * One call: admitted, dispatched, then settled by `settle` (complete or reportUnknown), whose write the
 * store commits but whose answer is lost: the port hears it fail. `beforeReturn` runs after.
 */
class AnswerLost extends PortCalls {
  constructor(readonly settle: "complete" | "reportUnknown") {
    super();
  }

  protected async calls(port: InvocationToolActionPort): Promise<string> {
    const decision = await port.admit(requestFor(port, "lost"));
    if (!decision.admitted) throw new Error(`refused: ${decision.refusal}`);
    const id = decision.actionInstanceId;
    assert.equal((await port.dispatch(id)).accepted, true);
    const answer =
      this.settle === "complete"
        ? await port.complete(id, outcomeFor(port, id))
        : await port.reportUnknown(id, "the portal did not answer");
    assert.equal(answer.ok, false, "the port heard the settlement fail");
    return id;
  }
}

/** A store whose settling writes commit, then throw as if the connection dropped before the answer. */
function answersLost(store: ControlPlaneStore): ControlPlaneStore {
  const update = store.updateToolAction.bind(store);
  store.updateToolAction = async (action, expected, ...rest) => {
    const written = await update(action, expected, ...rest);
    if (action.phase === "settled") throw new Error("connection terminated after COMMIT");
    return written;
  };
  return store;
}

async function answerLostOnce(
  opened: ControlPlaneStore,
  settle: "complete" | "reportUnknown",
): Promise<void> {
  const store = answersLost(opened);
  const runtime = new AnswerLost(settle);
  if (settle === "reportUnknown") runtime.beforeReturn = resolveWhileRunning(store);
  const manager = await openManager(store, runtime);
  try {
    const { invocations } = await manager.step();
    const [action] = await store.listToolActions({ participantAddress: EXAMPLE.participant });
    const expected = settle === "complete" ? "succeeded" : "indeterminate";
    assert.equal(action?.settlement, expected, "the stored outcome stays");
    assert.deepEqual(
      invocations[0]?.toolActions.map((a) => a.settlement),
      [expected],
      "the close reads the settlement back",
    );
    const events = (await manager.history()).filter((e) => e.action_instance_id === action?.id);
    const observed = events
      .map((e) => (e as { observation_status?: string }).observation_status)
      .filter((x) => x !== undefined);
    assert.deepEqual(
      observed,
      [expected === "succeeded" ? "terminal" : "orphaned_action"],
      "the history agrees",
    );
    if (settle === "reportUnknown") {
      assert.equal(action?.unknownReason, "the portal did not answer");
      assert.equal(action?.resolution?.resolution, "effect_absent", "the resolution stays");
    } else {
      const [scheduler] = await store.listSchedulers();
      assert.equal(scheduler?.stopReason, undefined, "no indeterminate action stops the scheduler");
    }
  } finally {
    await manager.close();
    await opened.close();
  }
}

describe("an invocation's close", () => {
  it("memory: writes only the actions it settles, so one resolved while it ran stays resolved", async () => {
    await closeOnce(new MemoryControlPlaneStore());
  });

  it("SQLite: writes only the actions it settles, so one resolved while it ran stays resolved", async () => {
    const store = await openControlPlaneStore(`sqlite:${join(dir, "close.db")}`);
    await closeOnce(store);
  });

  for (const settle of ["complete", "reportUnknown"] as const) {
    it(`keeps a settlement (${settle}) whose answer was lost, as stored, on memory and SQLite`, async () => {
      await answerLostOnce(new MemoryControlPlaneStore(), settle);
      await answerLostOnce(await openControlPlaneStore(`sqlite:${join(dir, `lost-${settle}.db`)}`), settle);
    });

    it(`keeps a settlement (${settle}) whose answer was lost, as stored, on PostgreSQL`, (t) =>
      inFreshSchema(t, "close read-back on PostgreSQL", "raes_close_lost", async (url) =>
        answerLostOnce(await openControlPlaneStore(url), settle),
      ));
  }

  it("PostgreSQL: writes only the actions it settles, so one resolved while it ran stays resolved", (t) =>
    inFreshSchema(t, "close writes on PostgreSQL", "raes_close_writes", async (url) =>
      closeOnce(await openControlPlaneStore(url)),
    ));
});

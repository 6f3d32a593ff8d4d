import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
  UnknownReason,
} from "../../../src/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../../helpers/example.js";
import { requestFor } from "../../helpers/tool-requests.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { deadOwnerId } from "../dead-owner.js";
import { HandClock } from "../record-times.js";

const INVOCATION = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;
const DISPATCHED = `${INVOCATION}:tool=1`;
const ADMITTED = `${INVOCATION}:tool=2`;
const T = {
  started: "2026-01-01T12:00:00.000000Z",
  aAdmitted: "2026-01-01T12:00:00.001000Z",
  aDispatched: "2026-01-01T12:00:00.003000Z",
  bAdmitted: "2026-01-01T12:00:00.004000Z",
  recovered: "2026-01-01T12:01:00.004000Z",
} as const;

/** Admits and dispatches one call, admits another, then hangs until released: a process about to die. */
class HangingRuntime extends ReferenceAutonomousParticipantRuntime {
  #port: InvocationToolActionPort | undefined;
  #release: () => void = () => undefined;
  readonly hanging: Promise<void>;
  #hung: () => void = () => undefined;
  constructor(private readonly clock: HandClock) {
    super();
    this.hanging = new Promise((resolve) => {
      this.#hung = resolve;
    });
  }
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#port = port;
  }
  release(): void {
    this.#release();
  }
  override async modelAction(request: ParticipantActionRequest, snapshot: ParticipantSnapshot) {
    const port = this.#port as InvocationToolActionPort;
    this.clock.advance(1);
    const a = await port.admit(requestFor(port, "a"));
    assert.ok(a.admitted);
    this.clock.advance(2);
    assert.ok((await port.dispatch(a.actionInstanceId)).accepted);
    this.clock.advance(1);
    assert.ok((await port.admit(requestFor(port, "b"))).admitted);
    await new Promise<void>((resolve) => {
      this.#release = resolve;
      this.#hung();
    });
    return this.nativeExecution(request, snapshot, request.episodeId, { status: "succeeded" });
  }
}

/** Each store: what both managers open, and how to drop it. */
type Backend = { store: ControlPlaneStore | string; cleanup: () => Promise<void> };

/**
 * Runs the interrupted invocation under a dead owner, then opens a second manager on the same store
 * a minute later (recovery), and gives that manager; the first one's late close is refused.
 */
async function interruptAndRecover(backend: Backend): Promise<RuntimeManager> {
  const clock = new HandClock();
  const runtime = new HangingRuntime(clock);
  const open = (ownerId?: string, rt: ReferenceAutonomousParticipantRuntime = runtime) =>
    RuntimeManager.open({
      model: modelStartingAt(10, 1_000),
      manifest: exampleManifest(),
      runtime: rt,
      store: backend.store,
      now: clock.now,
      ...(ownerId === undefined ? {} : { ownerId }),
    });
  const dying = await open(await deadOwnerId());
  const stepping = dying.step().then(
    () => "committed",
    (error: { code?: string }) => error.code ?? "rejected",
  );
  await runtime.hanging;
  clock.advance(60_000);
  // Its scheduler stops on the indeterminate action, so this harness is never called.
  const recovering = await open(undefined, new HangingRuntime(clock));
  runtime.release();
  assert.equal(await stepping, "store.lease-lost", "the dead owner's late close must be fenced off");
  await dying.close().catch(() => undefined);
  return recovering;
}

function recoverySuite(name: string, backend: () => Promise<Backend>) {
  it(`${name}: recovery keeps the last known times, marks recovered_at and the unknown reason, and writes no outer triple`, async () => {
    const b = await backend();
    const manager = await interruptAndRecover(b);
    try {
      const dispatched = await manager.getOperation(DISPATCHED);
      assert.equal(dispatched?.state, "indeterminate");
      assert.equal(dispatched?.unknownReason, UnknownReason.runtime_interrupted);
      assert.deepEqual(
        [dispatched?.admittedAt, dispatched?.dispatchedAt, dispatched?.settledAt, dispatched?.recoveredAt],
        [T.aAdmitted, T.aDispatched, undefined, T.recovered],
      );
      const withheld = await manager.getOperation(ADMITTED);
      assert.equal(withheld?.state, "cancelled");
      assert.equal(withheld?.unknownReason, undefined, "a withheld action's effects are known: none");
      assert.deepEqual(
        [withheld?.admittedAt, withheld?.dispatchedAt, withheld?.settledAt, withheld?.recoveredAt],
        [T.bAdmitted, undefined, undefined, T.recovered],
      );
      const outer = await manager.getOperation(INVOCATION);
      assert.equal(outer?.state, "failed");
      assert.deepEqual(
        [outer?.startedAt, outer?.endedAt, outer?.recoveredAt],
        [T.started, undefined, T.recovered],
      );
      const events = await manager.history();
      assert.deepEqual(
        events.map((e) => [e.action_instance_id, e.timestamp]),
        [
          [DISPATCHED, T.aAdmitted],
          [DISPATCHED, T.aDispatched],
          [DISPATCHED, T.recovered],
          [ADMITTED, T.bAdmitted],
          [ADMITTED, T.recovered],
          [ADMITTED, T.recovered],
        ],
        "tool triples at their known times, observed at recovery; no outer triple, as RAES keeps none for an attempt without a valid result",
      );
    } finally {
      await manager.close();
      await b.cleanup();
    }
  });
}

describe("recovery of an interrupted invocation: record times", async () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-recovery-times-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  recoverySuite("memory", async () => {
    const store = new MemoryControlPlaneStore();
    return { store, cleanup: () => store.close() };
  });
  let n = 0;
  recoverySuite("sqlite", async () => ({
    store: `sqlite:${join(dir, `cp-${n++}.db`)}`,
    cleanup: async () => undefined,
  }));
  if (await postgresAvailable("recovery times on postgres")) {
    recoverySuite("postgres", async () => {
      const { url, drop } = freshSchema();
      return { store: url, cleanup: drop };
    });
  }
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import {
  type ClockFold,
  type ControlPlaneStore,
  type InvocationRecord,
  MemoryControlPlaneStore,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import { exampleManifest, modelWithParticipants } from "../../helpers/example.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";

const STEP_TICKS = 10;

/** One store call as the runtime made it, with when it began and ended (call order, not time). */
interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
  readonly began: number;
  ended?: number;
  failed?: boolean;
}

/** The store with every call recorded in order. */
function recorded(inner: ControlPlaneStore): { store: ControlPlaneStore; calls: Call[] } {
  const calls: Call[] = [];
  let order = 0;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string" || property === "close") return value;
      return async (...args: unknown[]) => {
        const call: Call = { method: property, args, began: order++ };
        calls.push(call);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          call.failed = true;
          throw error;
        } finally {
          call.ended = order++;
        }
      };
    },
  });
  return { store, calls };
}

const opens = (calls: readonly Call[]) => calls.filter((c) => c.method === "openInvocation");
const foldOf = (call: Call) => call.args[3] as ClockFold | undefined;
const invocationOf = (call: Call) => call.args[0] as InvocationRecord;

interface Backend {
  readonly name: string;
  /** A fresh store; undefined when this backend cannot run here. */
  readonly open: () => Promise<ControlPlaneStore>;
  readonly available: () => Promise<boolean>;
}

const dir = mkdtempSync(join(tmpdir(), "raes-clock-fold-"));
let files = 0;
const schemas: Array<() => Promise<void>> = [];
const BACKENDS: readonly Backend[] = [
  { name: "memory", open: async () => new MemoryControlPlaneStore(), available: async () => true },
  {
    name: "sqlite",
    open: () => openControlPlaneStore(`sqlite:${join(dir, `s${files++}.db`)}`),
    available: async () => true,
  },
  {
    name: "postgres",
    open: () => {
      const schema = freshSchema("raes_fold");
      schemas.push(schema.drop);
      return openControlPlaneStore(schema.url);
    },
    available: () => postgresAvailable("clock fold runtime tests"),
  },
];

after(async () => {
  for (const drop of schemas) await drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

for (const backend of BACKENDS) {
  describe(`a step's clock change rides in its first invocation open (${backend.name})`, () => {
    let usable = false;
    before(async () => {
      usable = await backend.available();
    });

    /** `processes` managers on one store, each owning `perProcess` participants; the store's calls recorded. */
    const setup = async (processes: number, perProcess: number, maxAttempts = 1_000) => {
      const model = modelWithParticipants(processes * perProcess, maxAttempts);
      const manifest = exampleManifest();
      manifest.participant_runtime.max_autonomous_participants = processes * perProcess;
      const inner = await backend.open();
      const { store, calls } = recorded(inner);
      const managers: RuntimeManager[] = [];
      for (let i = 0; i < processes; i += 1) {
        const runtime = new RecordingRuntime();
        runtime.toolCallsPerInvocation = 1;
        managers.push(
          await RuntimeManager.open({
            model,
            manifest,
            runtime,
            store,
            ownerId: `host-${i}`,
            log: () => undefined,
          }),
        );
      }
      // Each process takes its share at its next step boundary: step all once so shares settle.
      for (const m of managers) await m.step();
      for (const m of managers) await m.step();
      const clockAddress = Object.values(model.autonomousPolicies)[0]?.clockAddress ?? "";
      const clock = async () => (await inner.getClock(clockAddress)) ?? assert.fail("no clock");
      const close = async () => {
        for (const m of managers) await m.close();
        await inner.close();
      };
      return { managers, calls, clock, close };
    };

    it("commits no clock change of its own when it opens an invocation: the first open carries it", async (t) => {
      if (!usable) return t.skip("backend unavailable");
      const { managers, calls, clock, close } = await setup(1, 2);
      const [m] = managers as [RuntimeManager];
      const before = await clock();
      const from = calls.length;
      const summary = await m.step(1, { concurrency: 2 });
      const step = calls.slice(from);
      assert.equal(summary.invocations.length, 2);
      assert.deepEqual(
        step.filter((c) => c.method === "updateClock"),
        [],
        "no standalone clock transaction",
      );
      const [carrier, ...others] = opens(step);
      assert.ok(carrier && others.length === 1);
      const fold = foldOf(carrier);
      assert.ok(fold, "the first open carried the change");
      assert.equal(fold.expected.tick, before.tick + STEP_TICKS);
      assert.equal((await clock()).tick, before.tick + STEP_TICKS, "the clock moved once");
      for (const other of others) {
        assert.equal(foldOf(other), undefined, "only one open touches the clock");
        assert.ok(
          (other.began ?? 0) > (carrier.ended ?? Number.POSITIVE_INFINITY),
          "no open commits before the carrier",
        );
      }
      // One tool call per invocation: open (with the clock), claim, dispatch, complete, close.
      const perInvocation = step.filter((c) =>
        [
          "updateClock",
          "openInvocation",
          "insertToolAction",
          "updateToolAction",
          "commitInvocation",
        ].includes(c.method),
      ).length;
      assert.equal(perInvocation, 2 * 5);
      await close();
    });

    it("moves the clock on its own in a step that opens nothing", async (t) => {
      if (!usable) return t.skip("backend unavailable");
      const { managers, calls, clock, close } = await setup(1, 1, 2);
      const [m] = managers as [RuntimeManager];
      // Two steps in setup used the participant's two attempts.
      const before = await clock();
      const from = calls.length;
      const summary = await m.step();
      assert.equal(summary.steps, 1);
      assert.equal(summary.invocations.length, 0);
      assert.equal(opens(calls.slice(from)).length, 0);
      assert.equal(calls.slice(from).filter((c) => c.method === "updateClock").length, 1);
      assert.equal((await clock()).tick, before.tick + STEP_TICKS);
      await close();
    });

    it("writes nothing of its predicted work when another process paused the clock in between", async (t) => {
      if (!usable) return t.skip("backend unavailable");
      const { managers, calls, clock, close } = await setup(2, 2);
      const [a, b] = managers as [RuntimeManager, RuntimeManager];
      await b.pause();
      const before = await clock();
      const from = calls.length;
      const summary = await a.step(1, { concurrency: 2 });
      assert.deepEqual(summary, { steps: 0, invocations: [] }, "as a step that found the clock paused");
      const tried = opens(calls.slice(from));
      assert.equal(tried.length, 1, "one open carried the change; the other waited for it and wrote nothing");
      assert.ok(tried[0]?.failed && foldOf(tried[0]), "the carrying open was refused");
      assert.deepEqual(await clock(), { ...before, updatedAt: (await clock()).updatedAt });
      await b.resume();
      const resumed = await a.step();
      assert.equal(resumed.steps, 1, "steps again once resumed");
      await close();
    });

    it("runs the new segment's work, not its prediction, when another process reset the clock in between", async (t) => {
      if (!usable) return t.skip("backend unavailable");
      const { managers, calls, clock, close } = await setup(2, 1);
      const [a, b] = managers as [RuntimeManager, RuntimeManager];
      const old = await clock();
      await b.reset();
      const from = calls.length;
      const summary = await a.step();
      assert.equal(summary.steps, 1);
      const now = await clock();
      assert.equal(now.segment, old.segment + 1);
      assert.equal(now.tick, 0, "the old segment's advance does not apply to the new one");
      assert.ok(summary.invocations.length > 0, "a runs its participant's start of the new segment");
      const refused = opens(calls.slice(from)).filter((c) => c.failed);
      assert.equal(refused.length, 1, "the open carrying the old segment's step was refused");
      assert.equal(invocationOf(refused[0] as Call).segment, old.segment);
      const written = opens(calls.slice(from)).filter((c) => !c.failed);
      assert.ok(written.length > 0);
      for (const call of written) {
        assert.equal(invocationOf(call).segment, now.segment, "nothing opened in the old segment");
        assert.equal(invocationOf(call).tick, 0);
      }
      await close();
    });

    it("runs the ticks the clock passed when another process stepped further in between", async (t) => {
      if (!usable) return t.skip("backend unavailable");
      const { managers, calls, clock, close } = await setup(2, 1);
      const [a, b] = managers as [RuntimeManager, RuntimeManager];
      const start = (await clock()).tick;
      await b.step(2);
      const from = calls.length;
      const summary = await a.step();
      assert.equal(summary.steps, 1);
      assert.equal((await clock()).tick, start + 2 * STEP_TICKS, "a moved nothing: the clock was ahead");
      const step = calls.slice(from);
      const failed = opens(step).filter((c) => c.failed);
      assert.equal(failed.length, 1, "the carrying open was refused once");
      assert.ok(foldOf(failed[0] as Call));
      const written = opens(step).filter((c) => !c.failed);
      assert.ok(written.length > 0);
      assert.equal(Math.max(...written.map((c) => invocationOf(c).tick)), start + 2 * STEP_TICKS);
      for (const call of written) assert.equal(foldOf(call), undefined, "the fallback opens carry no change");
      await close();
    });
  });
}

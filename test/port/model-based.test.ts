import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  RuntimeManager,
  type StepSummary,
} from "../../src/index.js";
import { EXAMPLE, modelStartingAt } from "../helpers/example.js";
import { manifestWithLimits } from "./support/core.js";
import { attemptOrder, belongsTo, ScriptedRuntime } from "./support/invocation.js";
import { explain, fire, modelActions, storedActions } from "./support/model-driver.js";
import { type Op, type OutcomeKind, SpecModel, type Variant } from "./support/spec-model.js";

const RUNS = Number(process.env.MODEL_BASED_RUNS ?? 1000);
const SETTLED_OPERATION: Record<string, string> = {
  succeeded: "succeeded",
  partial_success: "succeeded",
  failed: "failed",
  withheld: "cancelled",
  indeterminate: "indeterminate",
};

/** One open invocation of a real manager whose harness waits until the sequence closes it. */
interface Real {
  readonly manager: RuntimeManager;
  readonly store: MemoryControlPlaneStore;
  readonly port: InvocationToolActionPort;
  readonly release: () => void;
  readonly stepping: Promise<StepSummary>;
}

/** The model is boxed so a command can replace it with the linearisation it found. */
interface Box {
  spec: SpecModel;
  /** Commands run after close; a few show every call is closed, more would only repeat that. */
  afterClose: number;
}

async function start(total: number, concurrent: number): Promise<Real> {
  const store = new MemoryControlPlaneStore();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: (port: InvocationToolActionPort) => void = () => undefined;
  const opened = new Promise<InvocationToolActionPort>((resolve) => {
    entered = resolve;
  });
  const runtime = new ScriptedRuntime(async (port) => {
    entered(port);
    await released;
  });
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10),
    manifest: manifestWithLimits(total, concurrent),
    runtime,
    store,
  });
  const stepping = manager.step(1);
  const port = await Promise.race([
    opened,
    stepping.then(() => Promise.reject(new Error("the port never opened"))),
  ]);
  return { manager, store, port, release, stepping };
}

async function checkClosed(spec: SpecModel, real: Real): Promise<void> {
  const id = real.port.invocationActionInstanceId;
  const events = (await real.manager.history()).filter((e) => belongsTo(e, id));
  assert.deepEqual(attemptOrder(events, id), [...spec.actions.map((a) => a.call), "outer"], "history order");
  const settlements = events
    .filter((e) => e.event_type === "observation_emitted" && e.invocation_tool_context)
    .map((e) => [e.invocation_tool_context?.admission_ordinal, e.invocation_tool_context?.settlement]);
  assert.deepEqual(
    settlements,
    spec.actions.map((a) => [a.ordinal, a.settlement]),
    "history settlements",
  );
  for (const action of spec.actions) {
    const operation = await real.manager.getOperation(action.id);
    assert.equal(operation?.state, SETTLED_OPERATION[action.settlement ?? ""], `operation of ${action.id}`);
  }
  const indeterminate = spec.actions.some((a) => a.settlement === "indeterminate");
  const scheduler = real.manager.schedulers().find((s) => s.participantAddress === EXAMPLE.participant);
  assert.equal(scheduler?.lifecycle, indeterminate ? "stopped" : "running", "scheduler");
}

/** Fires ops without awaiting (optionally then returns from the invocation), awaits them together, checks. */
class FireCommand implements fc.AsyncCommand<Box, Real> {
  ops: readonly Op[] = [];

  constructor(
    readonly picks: readonly Picked[],
    readonly thenClose: boolean,
  ) {}

  check(box: Readonly<Box>): boolean {
    return !box.spec.closed || (!this.thenClose && box.afterClose < 3);
  }

  async run(box: Box, real: Real): Promise<void> {
    this.ops = this.picks.map((p) => resolve(p, box.spec));
    if (box.spec.closed) box.afterClose += 1;
    const answers = this.ops.map((op) => fire(real.port, op));
    if (this.thenClose) real.release();
    const observed = await Promise.all(answers);
    if (this.thenClose) await real.stepping;
    const id = real.port.invocationActionInstanceId;
    const stored = await storedActions(real.store, id);
    const next = explain(box.spec, this.ops, observed, stored, this.thenClose);
    assert.ok(
      next,
      `no order of ${this.toString()} explains answers ${JSON.stringify(observed)} with store ${stored}; model ${modelActions(box.spec)}`,
    );
    box.spec = next;
    assert.ok(next.unsettled() <= next.concurrent, "concurrent limit");
    assert.ok(next.actions.length <= next.total, "total limit");
    if (this.thenClose) await checkClosed(next, real);
  }

  toString(): string {
    const ops = (this.ops.length > 0 ? this.ops : this.picks).map((op) => JSON.stringify(op)).join(" & ");
    return this.thenClose ? `fire(${ops}) then close` : `fire(${ops})`;
  }
}

const variant: fc.Arbitrary<Variant> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Variant>("base") },
  { weight: 2, arbitrary: fc.constantFrom<Variant>("wide") },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Variant>("malformed", "identity", "generation", "unbound", "target"),
  },
);
const outcome = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<OutcomeKind>("succeeded", "failed", "partial_success") },
  { weight: 1, arbitrary: fc.constantFrom<OutcomeKind>("failed_declared_class", "succeeded_with_evidence") },
  {
    weight: 2,
    arbitrary: fc.constantFrom<OutcomeKind>(
      "foreign_point",
      "hidden_evidence",
      "undeclared_class",
      "status_withheld",
    ),
  },
);
/** An op whose target is picked among the actions admitted when it fires; below 50 an unsettled one when there is one, 80-89 the next ordinal (racing an admit), 90 and above an id never admitted. */
type Picked = Op extends infer O
  ? O extends { ordinal: number }
    ? Omit<O, "ordinal"> & { pick: number }
    : O
  : never;

function resolve(picked: Picked, spec: SpecModel): Op {
  if (!("pick" in picked)) return picked;
  const { pick, ...rest } = picked;
  const admitted = spec.actions.length;
  const open = spec.actions.filter((a) => a.phase !== "settled");
  const openOrdinal = open[pick % Math.max(open.length, 1)]?.ordinal;
  const ordinal =
    pick >= 90
      ? 99
      : pick >= 80
        ? admitted + 1
        : pick < 50 && openOrdinal !== undefined
          ? openOrdinal
          : (pick % Math.max(admitted, 1)) + 1;
  return { ...rest, ordinal } as Op;
}

const ordinal = fc.integer({ min: 0, max: 99 });
const op: fc.Arbitrary<Picked> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant("admit" as const),
      call: fc.constantFrom("t0", "t1", "t2", "t3", "t4", "t5"),
      variant,
    }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant("dispatch" as const), pick: ordinal }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant("complete" as const), pick: ordinal, outcome }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("reportUnknown" as const),
      pick: ordinal,
      withReason: fc.oneof(
        { weight: 4, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant("cancel" as const), pick: ordinal }) },
);
const commands = fc.commands(
  [
    ...Array.from({ length: 6 }, () => op.map((o) => new FireCommand([o], false))),
    ...Array.from({ length: 3 }, () =>
      fc.array(op, { minLength: 2, maxLength: 4 }).map((ops) => new FireCommand(ops, false)),
    ),
    fc.array(op, { minLength: 0, maxLength: 3 }).map((ops) => new FireCommand(ops, true)),
  ],
  { maxCommands: 30, size: "+1" },
);
const limits = fc
  .integer({ min: 1, max: 6 })
  .chain((total) => fc.tuple(fc.constant(total), fc.integer({ min: 1, max: Math.min(total, 3) })));

describe("model-based: random port sequences against a reference model of the spec", () => {
  it(`${RUNS} sequences of admit/dispatch/complete/reportUnknown/cancel/close, some concurrent`, async () => {
    await fc.assert(
      fc.asyncProperty(limits, commands, async ([total, concurrent], cmds) => {
        const real = await start(total, concurrent);
        const box: Box = {
          spec: new SpecModel(real.port.invocationActionInstanceId, total, concurrent),
          afterClose: 0,
        };
        try {
          await fc.asyncModelRun(() => ({ model: box, real }), cmds);
          if (!box.spec.closed) await new FireCommand([], true).run(box, real);
          assert.equal(
            await storedActions(real.store, real.port.invocationActionInstanceId),
            modelActions(box.spec),
          );
        } finally {
          real.release();
          await real.stepping.catch(() => undefined);
          await real.manager.close();
        }
      }),
      { numRuns: RUNS },
    );
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type ControlPlaneStore,
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../../src/index.js";
import { CallbackFailures } from "../../helpers/callback-failures.js";
import { exampleManifest, modelStartingAt, ROOT } from "../../helpers/example.js";
import { withWriteFaults } from "../../helpers/faulty-store.js";
import { checkThen, type VectorThen } from "./vector-then.js";
import { V2_CONTROLS, v2Manifest, v2OneAtATimeModel } from "./vectors-v2.js";

/** One step of a conformance vector. */
export interface Step {
  op: string;
  call?: string;
  with?: Record<string, unknown>;
  expect?: string;
  id?: string;
  same_id_as?: string;
  on?: string;
}

/** One conformance vector of port-vectors.json. */
export interface Vector {
  name: string;
  setup?: Record<string, unknown>;
  repeat?: { times: number; steps: Step[] };
  steps: Step[];
  then: VectorThen;
}

const FILE = join(ROOT, "test", "fixtures", "conformance", "port-vectors.json");
/** The parsed vector file. */
export const SPEC = JSON.parse(readFileSync(FILE, "utf8")) as {
  request_template: Record<string, unknown>;
  outcome_template: Record<string, unknown>;
  vectors: Vector[];
};

/**
 * Turns the port the runtime attached into the port the steps use: the port itself in process, or
 * the other side of a bridge. Called inside `attachInvocationToolActions`, before any step runs.
 */
export type PortConnector = (port: InvocationToolActionPort) => Promise<InvocationToolActionPort>;

const inProcess: PortConnector = async (port) => port;

function resolveValue(value: unknown, port: InvocationToolActionPort): unknown {
  if (typeof value !== "string") return value;
  if (value === "'x'*257") return "x".repeat(257);
  if (value === "$port.executionGeneration+1") return port.executionGeneration + 1;
  const match = /^\$port\.([A-Za-z]+)(.*)$/.exec(value);
  if (!match) return value;
  const base = (port as unknown as Record<string, unknown>)[match[1] ?? ""];
  return match[2] ? `${String(base)}${match[2]}` : base;
}

/** A template with overrides, `$port.X` values resolved against the port the steps use. */
export function fill(
  template: Record<string, unknown>,
  overrides: Record<string, unknown>,
  port: InvocationToolActionPort,
) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...template, ...overrides })) out[k] = resolveValue(v, port);
  return out;
}

function expandSteps(vector: Vector): Step[] {
  const repeated: Step[] = [];
  for (let i = 1; i <= (vector.repeat?.times ?? 0); i += 1) {
    for (const step of vector.repeat?.steps ?? []) {
      repeated.push(step.call === undefined ? step : { ...step, call: step.call.replace("{i}", String(i)) });
    }
  }
  return [...repeated, ...vector.steps];
}

/** What a vector's `throw` step raises inside the invocation. */
const RAISED = "the invocation raises";

/**
 * Runs one vector's steps against the port inside one real invocation. The manager catches what a
 * callback throws, so every step runs guarded and `runVector` rethrows any mismatch afterwards.
 */
class VectorRuntime extends ReferenceAutonomousParticipantRuntime {
  port: InvocationToolActionPort | undefined;
  readonly ids = new Map<string, string>();
  readonly failures = new CallbackFailures();
  constructor(
    private readonly steps: Step[],
    private readonly store: ControlPlaneStore,
    private readonly connect: PortConnector,
    private readonly onStoreWriteFailure: () => void,
  ) {
    super();
  }

  async attachInvocationToolActions(attached: InvocationToolActionPort): Promise<void> {
    await this.failures.guard(async () => {
      const port = await this.connect(attached);
      this.port = port;
      for (const step of this.steps.filter((s) => s.op === "admit_during_attachment")) {
        await this.run(step, port);
      }
    });
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    ctx: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const raises = await this.failures.guard(async () => {
      const port = this.port;
      assert.ok(port, "a port is attached before admitAction");
      for (const step of this.steps) {
        if (step.op === "admit_during_attachment") continue;
        if (step.op === "close") break;
        if (step.op === "throw") return true;
        await this.run(step, port);
      }
      return false;
    });
    if (raises) throw new Error(RAISED);
    return this.nativeExecution(request, snapshot, ctx.episodeId, { status: "succeeded" });
  }

  async run(step: Step, port: InvocationToolActionPort): Promise<void> {
    const where = `${step.op} ${step.call ?? ""}`;
    const label = step.call ?? "";
    const id = this.ids.get(label) ?? String(resolveValue(label, port));
    const records = () => this.store.listToolActions({ invocationId: port.invocationActionInstanceId });
    const before = (await records()).length;
    let got: string;
    if (step.op === "admit" || step.op === "admit_during_attachment") {
      const callId = resolveValue(label, port);
      const request = fill(SPEC.request_template, { toolCallId: callId, ...(step.with ?? {}) }, port);
      const decision = await port.admit(request as never);
      if (decision.admitted) {
        got = "admitted";
        if (step.same_id_as) assert.equal(decision.actionInstanceId, this.ids.get(step.same_id_as), where);
        if (step.id) assert.equal(decision.actionInstanceId, resolveValue(step.id, port), where);
        if (!this.ids.has(label)) this.ids.set(label, decision.actionInstanceId);
      } else {
        got = decision.refusal;
        assert.equal((await records()).length, before, `${where}: a refusal leaves no record`);
        if (decision.refusal === "ledger_unavailable") this.onStoreWriteFailure();
      }
    } else if (step.op === "dispatch") {
      const receipt = await port.dispatch(id);
      got = receipt.accepted ? "accepted" : receipt.refusal;
    } else if (step.op === "complete") {
      const outcome = fill(SPEC.outcome_template, { actionInstanceId: id, ...(step.with ?? {}) }, port);
      const ack = await port.complete(id, outcome as never);
      got = ack.ok ? "ok" : ack.refusal;
    } else if (step.op === "report_unknown") {
      const ack = await port.reportUnknown(id, "timeout");
      got = ack.ok ? "ok" : ack.refusal;
    } else if (step.op === "cancel") {
      const ack = await port.cancel(id);
      got = ack.ok ? "ok" : ack.refusal;
    } else {
      throw new Error(`unknown op ${step.op}`);
    }
    assert.equal(got, step.expect, `${where}: expected ${step.expect}, got ${got}`);
  }
}

/** The policy a vector runs under: the v1 example's, or the v2 example's (one attempt per due tick). */
export type VectorProfile = "v1" | "v2";

function manifestFor(
  setup: Record<string, unknown> = {},
  profile: VectorProfile = "v1",
): Record<string, unknown> {
  // biome-ignore lint/suspicious/noExplicitAny: both manifests are the same JSON shape
  const manifest: any = profile === "v2" ? v2Manifest() : exampleManifest();
  const runtime = manifest.participant_runtime;
  const targets = setup.manifest_execution_bindings_targets;
  if (Array.isArray(targets)) for (const b of runtime.execution_bindings) b.target_addresses = targets;
  if (setup.manifest_duplicate_execution_binding) {
    const [first] = runtime.execution_bindings;
    runtime.execution_bindings.push({ ...first, binding_id: `${first.binding_id}.copy` });
  }
  return manifest;
}

/**
 * Runs one vector in one real invocation of a real manager, its steps going through the port that
 * `connect` returns, then checks the vector's `then`. Returns the port the steps used.
 */
export async function runVector(
  vector: Vector,
  connect: PortConnector = inProcess,
  profile: VectorProfile = "v1",
): Promise<InvocationToolActionPort> {
  const steps = expandSteps(vector);
  const splitAt = steps.findIndex((s) => s.op === "close" || s.op === "throw");
  const after = splitAt >= 0 ? steps.slice(splitAt + 1) : [];
  const faults = withWriteFaults(new MemoryControlPlaneStore());
  if (vector.setup?.store_write_fails) faults.failing.add("insertToolAction");
  let storeFailedOnce = false;
  const runtime = new VectorRuntime(
    splitAt >= 0 ? steps.slice(0, splitAt + 1) : steps,
    faults.store,
    connect,
    () => {
      storeFailedOnce = true;
    },
  );
  const manager = await RuntimeManager.open({
    model: profile === "v2" ? v2OneAtATimeModel() : modelStartingAt(10),
    manifest: manifestFor(vector.setup, profile),
    runtime,
    store: faults.store,
    ...(profile === "v2" ? { stochasticControls: V2_CONTROLS } : {}),
    ...(vector.setup?.crossing_policy_installed ? { crossingPolicy: { name: "test-crossing-policy" } } : {}),
  });
  try {
    // v1: the cadence's tick 10 is one step away; v2: step until the first drawn attempt runs.
    let { invocations } = await manager.step(1);
    for (let n = 1; profile === "v2" && invocations.length === 0 && n < 100; n += 1)
      ({ invocations } = await manager.step(1));
    runtime.failures.rethrow();
    assert.equal(invocations.length, 1, "one outer invocation");
    const raised = invocations[0]?.error;
    if (splitAt >= 0 && steps[splitAt]?.op === "throw") assert.equal((raised as Error).message, RAISED);
    else assert.equal(raised, undefined, "the invocation did not throw");
    const port = runtime.port;
    assert.ok(port);
    assert.equal(
      port.invocationActionInstanceId,
      invocations[0]?.invocationId,
      "the steps' port is this invocation's",
    );
    for (const step of after) {
      assert.equal(step.on, "previous_port");
      await runtime.run(step, port);
    }
    if (vector.setup?.store_write_fails) {
      assert.ok(storeFailedOnce);
      const records = await faults.store.listToolActions({ invocationId: port.invocationActionInstanceId });
      assert.equal(records.length, 0, "no record exists after ledger_unavailable");
    }
    await checkThen(manager, port.invocationActionInstanceId, runtime.ids, vector.then);
    return port;
  } finally {
    await manager.close();
  }
}

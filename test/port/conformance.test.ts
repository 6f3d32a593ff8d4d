import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type ControlPlaneStore,
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { EXAMPLE, exampleManifest, exampleModel, ROOT } from "../helpers/example.js";
import { withWriteFaults } from "../helpers/faulty-store.js";

interface Step {
  op: string;
  call?: string;
  with?: Record<string, unknown>;
  expect?: string;
  id?: string;
  same_id_as?: string;
  on?: string;
}
interface Vector {
  name: string;
  setup?: Record<string, unknown>;
  repeat?: { times: number; steps: Step[] };
  steps: Step[];
  then: Record<string, any>;
}
const FILE = join(ROOT, "test", "fixtures", "conformance", "port-vectors.json");
const SPEC = JSON.parse(readFileSync(FILE, "utf8")) as {
  request_template: Record<string, unknown>;
  outcome_template: Record<string, unknown>;
  vectors: Vector[];
};

function resolveValue(value: unknown, port: InvocationToolActionPort): unknown {
  if (typeof value !== "string") return value;
  if (value === "'x'*257") return "x".repeat(257);
  if (value === "$port.executionGeneration+1") return port.executionGeneration + 1;
  const match = /^\$port\.([A-Za-z]+)(.*)$/.exec(value);
  if (!match) return value;
  const base = (port as unknown as Record<string, unknown>)[match[1] ?? ""];
  return match[2] ? `${String(base)}${match[2]}` : base;
}

function fill(
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

/** Runs one vector's steps against the real port inside one real invocation. */
class VectorRuntime extends ReferenceAutonomousParticipantRuntime {
  port: InvocationToolActionPort | undefined;
  readonly ids = new Map<string, string>();
  readonly log: string[] = [];
  constructor(
    private readonly steps: Step[],
    private readonly store: ControlPlaneStore,
    private readonly onStoreWriteFailure: () => void,
  ) {
    super();
  }

  async attachInvocationToolActions(port: InvocationToolActionPort): Promise<void> {
    this.port = port;
    for (const step of this.steps.filter((s) => s.op === "admit_during_attachment")) {
      await this.run(step, port);
    }
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    ctx: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.port;
    assert.ok(port, "a port is attached before admitAction");
    for (const step of this.steps) {
      if (step.op === "admit_during_attachment") continue;
      if (step.op === "close") break;
      if (step.op === "throw") throw new Error("the invocation raises");
      await this.run(step, port);
    }
    return this.nativeExecution(request, snapshot, ctx.episodeId, { status: "succeeded" });
  }

  async run(step: Step, port: InvocationToolActionPort): Promise<void> {
    const where = `${step.op} ${step.call ?? ""}`;
    const label = step.call ?? "";
    const id = this.ids.get(label) ?? String(resolveValue(label, port));
    const before = (await this.store.listToolActions({ invocationId: port.invocationActionInstanceId }))
      .length;
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
        const after = (await this.store.listToolActions({ invocationId: port.invocationActionInstanceId }))
          .length;
        assert.equal(after, before, `${where}: a refusal leaves no record`);
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
    this.log.push(`${where} -> ${got}`);
    assert.equal(got, step.expect, `${where}: expected ${step.expect}, got ${got}`);
  }
}

function manifestFor(setup: Record<string, unknown> = {}): Record<string, any> {
  const manifest = exampleManifest();
  const runtime = manifest.participant_runtime;
  const targets = setup.manifest_execution_bindings_targets;
  if (Array.isArray(targets)) for (const b of runtime.execution_bindings) b.target_addresses = targets;
  if (setup.manifest_duplicate_execution_binding) {
    const [first] = runtime.execution_bindings;
    runtime.execution_bindings.push({ ...first, binding_id: `${first.binding_id}.copy` });
  }
  return manifest;
}

describe("conformance: port-vectors.json against the real RuntimeManager and port", () => {
  it("has all 27 vectors", () => assert.equal(SPEC.vectors.length, 27));

  for (const vector of SPEC.vectors) {
    it(vector.name, async () => {
      const steps = expandSteps(vector);
      const splitAt = steps.findIndex((s) => s.op === "close" || s.op === "throw");
      const after = splitAt >= 0 ? steps.slice(splitAt + 1) : [];
      const faults = withWriteFaults(new MemoryControlPlaneStore());
      if (vector.setup?.store_write_fails) faults.failing.add("insertToolAction");
      let storeFailedOnce = false;
      const runtime = new VectorRuntime(
        splitAt >= 0 ? steps.slice(0, splitAt + 1) : steps,
        faults.store,
        () => {
          storeFailedOnce = true;
        },
      );
      const manager = await RuntimeManager.open({
        model: exampleModel(),
        manifest: manifestFor(vector.setup),
        runtime,
        store: faults.store,
        ...(vector.setup?.crossing_policy_installed
          ? { crossingPolicy: { name: "test-crossing-policy" } }
          : {}),
      });
      try {
        const { invocations } = await manager.step(1);
        assert.equal(invocations.length, 1, "one outer invocation");
        const port = runtime.port;
        assert.ok(port);
        for (const step of after) {
          assert.equal(step.on, "previous_port");
          await runtime.run(step, port);
        }
        if (vector.setup?.store_write_fails) {
          assert.ok(storeFailedOnce);
          const records = await faults.store.listToolActions({
            invocationId: port.invocationActionInstanceId,
          });
          assert.equal(records.length, 0, "no record exists after ledger_unavailable");
        }
        await checkThen(manager, port.invocationActionInstanceId, runtime.ids, vector.then);
      } finally {
        await manager.close();
      }
    });
  }

  it("after ledger_unavailable, the same admit is evaluated afresh once the store writes again", async () => {
    const faults = withWriteFaults(new MemoryControlPlaneStore());
    const results: string[] = [];
    class Retry extends ReferenceAutonomousParticipantRuntime {
      port?: InvocationToolActionPort;
      attachInvocationToolActions(port: InvocationToolActionPort) {
        this.port = port;
      }
      override async modelAction(
        r: ParticipantActionRequest,
        s: ParticipantSnapshot,
        c: { episodeId: string },
      ) {
        const port = this.port as InvocationToolActionPort;
        const request = fill(SPEC.request_template, { toolCallId: "a" }, port) as never;
        faults.failing.add("insertToolAction");
        const first = await port.admit(request);
        results.push(first.admitted ? "admitted" : first.refusal);
        faults.failing.clear();
        const second = await port.admit(request);
        results.push(second.admitted ? second.actionInstanceId : second.refusal);
        return this.nativeExecution(r, s, c.episodeId, { status: "succeeded" });
      }
    }
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime: new Retry(),
      store: faults.store,
    });
    const { invocations } = await manager.step(1);
    assert.deepEqual(results, ["ledger_unavailable", `${invocations[0]?.invocationId}:tool=1`]);
    await manager.close();
  });
});

async function checkThen(
  manager: RuntimeManager,
  invocationId: string,
  ids: Map<string, string>,
  then: Record<string, any>,
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
  for (const [label, fields] of Object.entries(then.observation ?? {}) as [
    string,
    Record<string, string>,
  ][]) {
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

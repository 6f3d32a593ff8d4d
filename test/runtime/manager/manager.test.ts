import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryControlPlaneStore, participantHistoryEvents, RuntimeManager } from "../../../src/index.js";
import { EXAMPLE, exampleManifest, exampleModel, modelWithAttempts } from "../../helpers/example.js";
import { oneToolCall, RecordingRuntime } from "../harnesses.js";

const POLICY = EXAMPLE.policy;
const P = EXAMPLE.participant;
const idOf = (n: number) => `${POLICY}:${P}:${n}`;

describe("RuntimeManager end to end on the example", () => {
  it("open and 100 steps under the example policy run exactly max_action_attempts (2) invocations, then the scheduler is completed", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
    });
    assert.deepEqual(
      runtime.requests.map((r) => r.observationPoint),
      ["time.clock.scenario-clock@segment=0,tick=0"],
      "the cadence's start tick runs at open",
    );
    const { steps, invocations } = await manager.step(100);
    assert.equal(steps, 100);
    assert.deepEqual(
      invocations.map((i) => i.invocationId),
      [idOf(1)],
    );
    assert.deepEqual(
      runtime.requests.map((r) => r.actionInstanceId),
      [idOf(0), idOf(1)],
    );
    assert.deepEqual(
      manager.schedulers().map((s) => s.lifecycle),
      ["completed"],
    );
    assert.equal((await manager.history()).length, 6);
    await manager.close();
  });

  it("open and 100 steps with room for more attempts: 101 invocations, contiguous ids, one triple each, readable operations", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: exampleManifest(),
      runtime,
    });
    await manager.step(100);
    assert.equal(runtime.requests.length, 101);
    assert.deepEqual(
      runtime.requests.map((r) => r.actionInstanceId),
      Array.from({ length: 101 }, (_, n) => idOf(n)),
    );
    const first = runtime.requests[0];
    assert.equal(first?.episodeId, `${P}-autonomous-0`);
    assert.equal(first?.observationPoint, "time.clock.scenario-clock@segment=0,tick=0");
    assert.equal(runtime.requests[100]?.observationPoint, "time.clock.scenario-clock@segment=0,tick=1000");
    assert.equal(first?.executionGeneration, 1);
    assert.equal(first?.executionScopeRef, POLICY);
    assert.equal(first?.participantImplementationRef, EXAMPLE.implementation);
    assert.equal(first?.actionContractAddress, EXAMPLE.action);
    assert.equal(first?.targetAddresses.length, 7);
    const events = await manager.history();
    assert.equal(events.length, 303);
    for (let n = 0; n < 101; n += 1) {
      const triple = events.slice(n * 3, n * 3 + 3);
      assert.deepEqual(
        triple.map((e) => [e.event_type, e.action_instance_id, e.lifecycle_phase]),
        [
          ["action_attempted", idOf(n), "selection_or_admission"],
          ["state_transition_recorded", idOf(n), "state_update_commit"],
          ["observation_emitted", idOf(n), "observation_emission"],
        ],
      );
      assert.equal(triple[2]?.observation_status, "terminal");
      assert.equal(triple[2]?.action_result?.status, "succeeded");
      assert.deepEqual(
        triple.map((e) => e.post_state_digest?.slice(0, 7)),
        [undefined, "sha256:", "sha256:"],
      );
      assert.deepEqual(
        triple.map((e) => e.actor_provenance),
        [`participant-implementation:${EXAMPLE.implementation}@0`, undefined, undefined],
      );
    }
    assert.deepEqual(
      events.map((e) => e.sequence),
      Array.from({ length: 303 }, (_, i) => i + 1),
    );
    const op = await manager.getOperation(idOf(42));
    assert.deepEqual(
      { id: op?.id, parentId: op?.parentId, kind: op?.kind, state: op?.state },
      { id: idOf(42), parentId: null, kind: "scheduler_invocation", state: "succeeded" },
    );
    await manager.close();
  });

  it("pause stops due actions, resume continues, reset starts segment 1 with generation 2 and a new episode", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: exampleManifest(),
      runtime,
    });
    await manager.step(3);
    await manager.pause();
    const paused = await manager.step(5);
    assert.deepEqual([paused.steps, paused.invocations.length, runtime.requests.length], [0, 0, 4]);
    await manager.resume();
    assert.equal(runtime.requests.length, 4, "resume does not run the current tick twice");
    await manager.step(2);
    assert.equal(runtime.requests.length, 6);
    assert.equal(runtime.requests[5]?.observationPoint, "time.clock.scenario-clock@segment=0,tick=50");
    await manager.reset();
    assert.equal(runtime.requests.length, 7, "the new segment's start tick runs at the reset");
    await manager.step(1);
    const after = runtime.requests[6];
    assert.equal(after?.actionInstanceId, idOf(6), "ordinals stay contiguous across segments");
    assert.equal(after?.episodeId, `${P}-autonomous-1`);
    assert.equal(after?.executionGeneration, 2);
    assert.equal(after?.observationPoint, "time.clock.scenario-clock@segment=1,tick=0");
    assert.equal(runtime.snapshots[6]?.attempts, 1, "a new episode has a fresh attempt budget");
    assert.equal(runtime.requests[7]?.observationPoint, "time.clock.scenario-clock@segment=1,tick=10");
    const episodes = new Set((await manager.history()).map((e) => e.episode_id));
    assert.deepEqual([...episodes], [`${P}-autonomous-0`, `${P}-autonomous-1`]);
    await manager.close();
  });

  it("attaches a fresh port before each admitAction when the composition is claimed", async () => {
    const runtime = new RecordingRuntime();
    runtime.toolCallsPerInvocation = 2;
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
    });
    await manager.step(2);
    runtime.failures.rethrow();
    assert.equal(runtime.attached.length, 2);
    assert.notEqual(runtime.attached[0], runtime.attached[1]);
    assert.deepEqual(
      runtime.attached.map((p) => p.invocationActionInstanceId),
      [idOf(0), idOf(1)],
    );
    const events = await manager.history();
    assert.deepEqual(
      events.filter((e) => e.event_type === "action_attempted").map((e) => e.action_instance_id),
      [`${idOf(0)}:tool=1`, `${idOf(0)}:tool=2`, idOf(0), `${idOf(1)}:tool=1`, `${idOf(1)}:tool=2`, idOf(1)],
    );
    const child = await manager.getOperation(`${idOf(1)}:tool=2`);
    assert.deepEqual(
      { parentId: child?.parentId, kind: child?.kind, state: child?.state, settlement: child?.settlement },
      { parentId: idOf(1), kind: "tool_action", state: "succeeded", settlement: "succeeded" },
    );
    await manager.close();
  });

  it("without the claim no port is ever attached and autonomous execution is unchanged", async () => {
    const manifest = exampleManifest();
    delete manifest.participant_runtime.invocation_tool_actions;
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({ model: exampleModel(), manifest, runtime });
    await manager.step(2);
    assert.equal(runtime.attached.length, 0);
    assert.equal(runtime.requests.length, 2);
    assert.equal((await manager.history()).length, 6);
    await manager.close();
  });

  it("a participant without affordance bindings gets no port even under the claim", async () => {
    const model = { ...exampleModel(), affordanceBindings: [] };
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({ model, manifest: exampleManifest(), runtime });
    await manager.step(1);
    assert.deepEqual([runtime.attached.length, runtime.requests.length], [0, 2]);
    await manager.close();
  });

  it("history views project away the scope fields and keep invocation_tool_context", async () => {
    const runtime = new RecordingRuntime();
    runtime.toolCallsPerInvocation = 1;
    const store = new MemoryControlPlaneStore();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
      store,
    });
    await manager.step(1);
    await manager.reset();
    await manager.step(1);
    runtime.failures.rethrow();
    const view = await participantHistoryEvents(store, P, { episodeId: `${P}-autonomous-0` });
    assert.equal(view.length, 12);
    for (const event of view) {
      assert.equal("execution_scope_ref" in event, false);
      assert.equal("execution_generation" in event, false);
    }
    const tool = view[0];
    assert.deepEqual(tool?.invocation_tool_context, {
      invocation_action_instance_id: idOf(0),
      invocation_action_contract_address: EXAMPLE.action,
      tool_affordance_address: EXAMPLE.affordance,
      tool_call_id: "call-0",
      admission_ordinal: 1,
      settlement: "succeeded",
      execution_scope_ref: POLICY,
      execution_generation: 1,
    });
    assert.equal((await participantHistoryEvents(manager, P)).length, 24);
    assert.equal((await participantHistoryEvents(store, "participant.behavior.nobody")).length, 0);
    await manager.close();
  });

  it("the port's tool call helper refuses nothing on the happy path, and everything once closed", async () => {
    const runtime = new RecordingRuntime();
    runtime.toolCallsPerInvocation = 3;
    const refusals: string[] = [];
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
      observer: { toolActionRefused: (refusal) => refusals.push(refusal) },
    });
    const { invocations } = await manager.step(1);
    runtime.failures.rethrow();
    assert.deepEqual(refusals, [], "no call was refused");
    assert.deepEqual(
      invocations.flatMap((i) => i.toolActions.map((a) => [a.toolCallId, a.settlement])),
      [
        ["call-0", "succeeded"],
        ["call-1", "succeeded"],
        ["call-2", "succeeded"],
      ],
    );
    const port = runtime.attached[0];
    assert.ok(port);
    await assert.rejects(oneToolCall(port, "late"), /invocation_closed/);
    assert.deepEqual(refusals, ["invocation_closed"]);
    await manager.close();
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type InvocationSummary, type ParticipantActionRequest, RuntimeManager } from "../../../src/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../../helpers/example.js";
import { RecordingRuntime, ScriptedResultRuntime } from "../harnesses.js";

const valid = (r: ParticipantActionRequest) => ({
  status: "succeeded",
  participantAddress: r.participantAddress,
  episodeId: r.episodeId,
  actionInstanceId: r.actionInstanceId,
  actionContractAddress: r.actionContractAddress,
  observationPoint: r.observationPoint,
  postStateDigest: "sha256:abc",
});

/** Invalid outer results, each with what the invocation's error must name. */
const INVALID: Record<string, { answer: (r: ParticipantActionRequest) => unknown; names: RegExp }> = {
  "wrong participant": {
    answer: (r) => ({ ...valid(r), participantAddress: "participant.behavior.other" }),
    names: /participantAddress/,
  },
  "wrong action instance": {
    answer: (r) => ({ ...valid(r), actionInstanceId: `${r.actionInstanceId}x` }),
    names: /actionInstanceId/,
  },
  "wrong observation point": {
    answer: (r) => ({ ...valid(r), observationPoint: "time.clock.x@segment=0,tick=0" }),
    names: /observationPoint/,
  },
  "status of the wrong type": { answer: (r) => ({ ...valid(r), status: 1 }), names: /status/ },
  "status unknown": { answer: (r) => ({ ...valid(r), status: "unknown" }), names: /status.*unknown/ },
  "no post-state digest": { answer: (r) => ({ ...valid(r), postStateDigest: "" }), names: /postStateDigest/ },
  "hidden evidence": {
    answer: (r) => ({ ...valid(r), evidenceRefs: ["content.evaluator-notes"] }),
    names: /evidenceRefs.*content\.evaluator-notes/,
  },
  "not an object": { answer: () => "done", names: /not an object/ },
  throws: {
    answer: () => {
      throw new Error("boom");
    },
    names: /^boom$/,
  },
};

describe("outer results", () => {
  for (const [name, { answer, names }] of Object.entries(INVALID)) {
    it(`${name}: commits no history, consumes the attempt, stops the scheduler (failure_policy stop)`, async () => {
      const closed: InvocationSummary[] = [];
      const manager = await RuntimeManager.open({
        model: modelWithAttempts(10),
        manifest: exampleManifest(),
        runtime: new ScriptedResultRuntime(answer),
        observer: { invocationClosed: (summary) => closed.push(summary) },
      });
      const { invocations } = await manager.step(3);
      assert.equal(
        invocations.length,
        0,
        "the scheduler stopped by the start tick's invocation at open runs nothing more",
      );
      const id = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;
      assert.equal(closed.length, 1, "one invocation ran, at open");
      assert.match(String((closed[0]?.error as Error | undefined)?.message), names, "the error names it");
      assert.equal((await manager.getOperation(id))?.state, "failed");
      assert.equal((await manager.history()).length, 0);
      const [scheduler] = manager.schedulers();
      assert.deepEqual(
        [scheduler?.lifecycle, scheduler?.stopReason, scheduler?.attempts],
        ["stopped", "failure_policy", 1],
      );
      await manager.resumeParticipant(EXAMPLE.participant);
      const resumed = await manager.step(1);
      assert.equal(
        resumed.invocations[0]?.invocationId,
        `${id.slice(0, -1)}1`,
        "the next attempt gets the next ordinal",
      );
      await manager.close();
    });
  }

  it("resuming a scheduler that stopped on its last allowed attempt marks it completed (as RAES at the bound)", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(2),
      manifest: exampleManifest(),
      runtime,
    });
    try {
      runtime.outcome = { status: "failed", failureClass: "target_unavailable" };
      await manager.step(1);
      const [stopped] = manager.schedulers();
      assert.deepEqual(
        [stopped?.lifecycle, stopped?.stopReason, stopped?.attempts],
        ["stopped", "failure_policy", 2],
      );
      await manager.resumeParticipant(EXAMPLE.participant);
      const [resumed] = manager.schedulers();
      assert.deepEqual([resumed?.lifecycle, resumed?.stopReason], ["completed", undefined]);
      assert.equal((await manager.store.listSchedulers())[0]?.lifecycle, "completed", "committed too");
      assert.equal((await manager.step(2)).invocations.length, 0);
    } finally {
      await manager.close();
    }
  });

  it("a valid failed outcome is recorded with its failure class and stops under failure_policy stop", async () => {
    const runtime = new RecordingRuntime();
    runtime.outcome = {
      status: "failed",
      failureClass: "target_unavailable",
      evidenceRefs: ["content.participant-observation"],
    };
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(10),
      manifest: exampleManifest(),
      runtime,
    });
    await manager.step(4);
    const events = await manager.history();
    assert.equal(events.length, 3);
    // RAES's full result: the identity and observation point of the attempt, then what it reported.
    assert.deepEqual(events[2]?.action_result, {
      status: "failed",
      participant_address: "participant.behavior.participant-agent",
      episode_id: "participant.behavior.participant-agent-autonomous-0",
      action_instance_id:
        "participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:0",
      action_contract_address: "participant.action-contract.probe-customer-portal-login",
      observation_point: "time.clock.scenario-clock@segment=0,tick=0",
      failure_class: "target_unavailable",
      evidence_refs: ["content.participant-observation"],
    });
    assert.equal(manager.schedulers()[0]?.lifecycle, "stopped");
    await manager.close();
  });

  it("with failure_policy continue, a failed invocation does not stop the scheduler", async () => {
    const base = modelWithAttempts(10);
    const policies = Object.fromEntries(
      Object.entries(base.autonomousPolicies).map(([k, p]) => [k, { ...p, failurePolicy: "continue" }]),
    );
    const manager = await RuntimeManager.open({
      model: { ...base, autonomousPolicies: policies },
      manifest: exampleManifest(),
      runtime: new ScriptedResultRuntime(() => "invalid"),
    });
    const { invocations } = await manager.step(3);
    assert.deepEqual(
      invocations.map((i) => i.state),
      ["failed", "failed", "failed"],
    );
    assert.equal(manager.schedulers()[0]?.lifecycle, "running");
    await manager.close();
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { exampleManifest, modelStartingAt } from "../helpers/example.js";
import { codeOf, requestFor } from "../helpers/tool-requests.js";
import { ScriptedRuntime } from "./support/invocation.js";

const IDENTITY_KEYS = [
  "invocationActionInstanceId",
  "participantAddress",
  "episodeId",
  "participantImplementationRef",
  "executionScopeRef",
  "executionGeneration",
  "observationPoint",
] as const;

/** Runs `steps` invocations with a runtime that records each attached port and the request it served. */
async function runInvocations(options: {
  manifest?: Record<string, unknown>;
  resetAfter?: number;
  steps: number;
}) {
  const seen: Array<{ port: InvocationToolActionPort; request: ParticipantActionRequest }> = [];
  const runtime = new ScriptedRuntime(async (port, request) => {
    seen.push({ port, request });
    assert.equal(codeOf(await port.admit(requestFor(port, "a"))), "admitted");
  });
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 20),
    manifest: options.manifest ?? exampleManifest(),
    runtime,
  });
  try {
    for (let i = 0; i < options.steps; i += 1) {
      if (i === options.resetAfter) await manager.reset();
      await manager.step(1);
    }
    runtime.failures.rethrow();
    return { seen, runtime };
  } finally {
    await manager.close();
  }
}

describe("port lifecycle across invocations", () => {
  it("a fresh port per invocation whose read-only values are the invocation's; earlier ports are closed", async () => {
    const { seen, runtime } = await runInvocations({ steps: 3 });
    assert.equal(seen.length, 3);
    assert.equal(runtime.ports.length, 3);
    assert.equal(new Set(runtime.ports).size, 3, "never the same port object twice");
    assert.deepEqual(
      seen.map((s) => s.port),
      runtime.ports,
      "each invocation used the port attached just before it",
    );
    for (const { port, request } of seen) {
      assert.equal(port.invocationActionInstanceId, request.actionInstanceId);
      assert.equal(port.participantAddress, request.participantAddress);
      assert.equal(port.episodeId, request.episodeId);
      assert.equal(port.participantImplementationRef, request.participantImplementationRef);
      assert.equal(port.executionScopeRef, request.executionScopeRef);
      assert.equal(port.executionGeneration, request.executionGeneration);
      assert.equal(port.observationPoint, request.observationPoint);
      for (const key of IDENTITY_KEYS) {
        assert.throws(() => {
          (port as unknown as Record<string, unknown>)[key] = "changed";
        }, TypeError);
      }
      const late = await port.admit(requestFor(port, "late"));
      assert.equal(codeOf(late), "invocation_closed");
    }
    const ids = seen.map((s) => s.port.invocationActionInstanceId);
    assert.deepEqual(
      ids.map((id) => id.split(":").at(-1)),
      ["0", "1", "2"],
    );
  });

  it("after reset, the port carries the next generation and the new episode", async () => {
    const { seen } = await runInvocations({ steps: 2, resetAfter: 1 });
    const [first, second] = seen.map((s) => s.port);
    assert.equal(first?.executionGeneration, 1);
    assert.equal(second?.executionGeneration, 2);
    assert.notEqual(first?.episodeId, second?.episodeId);
    assert.match(second?.observationPoint ?? "", /segment=1,/);
  });

  it("without the claim no port is attached and autonomous execution runs unchanged", async () => {
    const manifest = exampleManifest();
    delete manifest.participant_runtime.invocation_tool_actions;
    const attached: InvocationToolActionPort[] = [];
    class Plain extends ReferenceAutonomousParticipantRuntime {
      attachInvocationToolActions(port: InvocationToolActionPort): void {
        attached.push(port);
      }
      override async modelAction(request: ParticipantActionRequest, snapshot: ParticipantSnapshot) {
        return this.nativeExecution(request, snapshot, request.episodeId, { status: "succeeded" });
      }
    }
    const manager = await RuntimeManager.open({
      model: modelStartingAt(10, 5),
      manifest,
      runtime: new Plain(),
    });
    try {
      const { invocations } = await manager.step(2);
      assert.deepEqual(
        invocations.map((i) => [i.state, i.toolActions.length]),
        [
          ["succeeded", 0],
          ["succeeded", 0],
        ],
      );
      assert.deepEqual(attached, []);
      assert.equal((await manager.history()).length, 6, "two outer triples only");
    } finally {
      await manager.close();
    }
  });
});

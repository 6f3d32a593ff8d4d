import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { exampleManifest, modelStartingAt } from "../helpers/example.js";
import { withWriteFaults } from "../helpers/faulty-store.js";
import { fill, runVector, SPEC } from "./support/vectors.js";

describe("conformance: port-vectors.json under a v2 policy (the v2 example, one attempt per due tick)", () => {
  for (const vector of SPEC.vectors) {
    it(vector.name, async () => {
      const port = await runVector(vector, undefined, "v2");
      assert.match(port.invocationActionInstanceId, /:episode=[^:]+:segment=0:occurrence=\d+:retry=0$/);
    });
  }
});

describe("conformance: port-vectors.json against the real RuntimeManager and port", () => {
  it("has all 27 vectors", () => assert.equal(SPEC.vectors.length, 27));

  for (const vector of SPEC.vectors) {
    it(vector.name, async () => {
      await runVector(vector);
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
      model: modelStartingAt(10),
      manifest: exampleManifest(),
      runtime: new Retry(),
      store: faults.store,
    });
    const { invocations } = await manager.step(1);
    assert.deepEqual(results, ["ledger_unavailable", `${invocations[0]?.invocationId}:tool=1`]);
    await manager.close();
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import { exampleManifest, exampleModel } from "../../helpers/example.js";
import { RecordingRuntime } from "../harnesses.js";

const MISMATCH = "registry.target-contract-mismatch";

async function openWith(runtime: unknown, manifest = exampleManifest()) {
  return RuntimeManager.open({ model: exampleModel(), manifest, runtime: runtime as never });
}

describe("registration inside RuntimeManager.open", () => {
  it("refuses a claiming manifest when the runtime has no attachInvocationToolActions", async () => {
    const runtime = { admitAction: async () => ({}) };
    await assert.rejects(openWith(runtime), (e: { code?: string }) => e.code === MISMATCH);
  });

  it("refuses when attachInvocationToolActions is not callable", async () => {
    const runtime = { admitAction: async () => ({}), attachInvocationToolActions: 42 };
    await assert.rejects(openWith(runtime), (e: { code?: string }) => e.code === MISMATCH);
  });

  it("refuses a claim without autonomous execution support", async () => {
    const manifest = exampleManifest();
    manifest.participant_runtime.supports_autonomous_execution = false;
    await assert.rejects(
      openWith(new RecordingRuntime(), manifest),
      (e: { code?: string }) => e.code === MISMATCH,
    );
  });

  it("refuses a claim whose tool_affordances support level is unsupported", async () => {
    const manifest = exampleManifest();
    for (const f of manifest.participant_runtime.feature_support) {
      if (f.feature === "tool_affordances") f.support_level = "unsupported";
    }
    await assert.rejects(
      openWith(new RecordingRuntime(), manifest),
      (e: { code?: string }) => e.code === MISMATCH,
    );
  });

  it("accepts a runtime without the method when the manifest does not claim", async () => {
    const manifest = exampleManifest();
    delete manifest.participant_runtime.invocation_tool_actions;
    const calls: string[] = [];
    const runtime = {
      admitAction: async (request: { actionInstanceId: string }) => {
        calls.push(request.actionInstanceId);
        return {};
      },
    };
    const manager = await openWith(runtime, manifest);
    await manager.step(1);
    assert.equal(calls.length, 1);
    await manager.close();
  });

  it("fails closed at planning on a policy the reference scheduler cannot run", async () => {
    const model = exampleModel();
    const [address, policy] = Object.entries(model.autonomousPolicies)[0] ?? [];
    assert.ok(address && policy);
    for (const change of [
      { profile: "participant-autonomous-execution/v3" },
      { selectionStrategy: "weighted_random" },
    ]) {
      const changed = { ...model, autonomousPolicies: { [address]: { ...policy, ...change } } };
      await assert.rejects(
        RuntimeManager.open({ model: changed, manifest: exampleManifest(), runtime: new RecordingRuntime() }),
        (e: { code?: string; message?: string }) =>
          e.code === "runtime.planning-unsupported" &&
          /reference scheduler|ordered_cycle/.test(e.message ?? ""),
      );
    }
  });

  it("rejects an invalid manifest with a fixed code", async () => {
    await assert.rejects(
      RuntimeManager.open({
        model: exampleModel(),
        manifest: { nonsense: true },
        runtime: new RecordingRuntime(),
      }),
      (e: { code?: string }) => e.code === "runtime.manifest-invalid",
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryControlPlaneStore, RuntimeManager, type RuntimeModel } from "../../../src/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../../helpers/example.js";
import { withWriteFaults } from "../../helpers/faulty-store.js";
import { RecordingRuntime } from "../harnesses.js";

const SECOND = "participant.behavior.participant-agent-2";

/** The example policy run by two participants, so one step has two due actions. */
function twoParticipants(): RuntimeModel {
  const base = modelWithAttempts(10);
  const policies = Object.fromEntries(
    Object.entries(base.autonomousPolicies).map(([key, policy]) => [
      key,
      { ...policy, participantAddresses: [...policy.participantAddresses, SECOND] },
    ]),
  );
  return { ...base, autonomousPolicies: policies };
}

describe("a step where several participants fail", () => {
  it("reports every failed participant, not just the first", async () => {
    const faults = withWriteFaults(new MemoryControlPlaneStore());
    const manager = await RuntimeManager.open({
      model: twoParticipants(),
      manifest: exampleManifest(),
      runtime: new RecordingRuntime(),
      store: faults.store,
    });
    try {
      assert.equal((await manager.step(1)).invocations.length, 2, "both participants are due each step");
      faults.failing.add("openInvocation");
      await assert.rejects(manager.step(1), (error: unknown) => {
        assert.ok(error instanceof AggregateError, String(error));
        assert.equal(error.errors.length, 2);
        assert.equal((error as { code?: string }).code, "ledger_unavailable", "the code both share");
        assert.deepEqual((error as { participants?: string[] }).participants, [EXAMPLE.participant, SECOND]);
        assert.match(error.message, new RegExp(`${EXAMPLE.participant}: store unavailable`));
        assert.match(error.message, new RegExp(`${SECOND}: store unavailable`));
        return true;
      });
    } finally {
      await manager.close();
    }
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ResumeRefusal, resumeStoredParticipant } from "../../src/operations/index.js";
import { RuntimeErrorCode } from "../../src/runtime/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { invocation, P1, scheduler, toolAction } from "../store/records.js";

describe("resuming a participant over a store (raes resume, the console's button)", () => {
  it("answers with the runtime's own codes", () => {
    assert.equal(ResumeRefusal.unresolved_indeterminate, RuntimeErrorCode.unresolved_indeterminate);
    assert.equal(ResumeRefusal.unknown_participant, RuntimeErrorCode.unknown_participant);
    assert.equal(ResumeRefusal.scheduler_not_resumable, RuntimeErrorCode.scheduler_not_resumable);
  });

  it("is refused while an indeterminate action is unresolved, and then records who resumed", async () => {
    const store = await openControlPlaneStore("memory:");
    try {
      const inv = invocation();
      await store.openInvocation(inv, scheduler({ attempts: 1 }));
      await store.insertToolAction(toolAction(inv, 1, { phase: "settled", settlement: "indeterminate" }));
      await store.saveScheduler(
        scheduler({ attempts: 1, lifecycle: "stopped", stopReason: "tool_action_indeterminate" }),
      );
      const refused = await resumeStoredParticipant(store, P1, { operator: "bob", note: "" });
      assert.ok("error" in refused);
      assert.equal(refused.error, ResumeRefusal.unresolved_indeterminate);
      assert.equal((await store.getDecisionHead()).decisions, 0);
      const unknown = await resumeStoredParticipant(store, "participant:nobody", {
        operator: "bob",
        note: "",
      });
      assert.ok("error" in unknown && unknown.error === ResumeRefusal.unknown_participant);
    } finally {
      await store.close();
    }
  });
});

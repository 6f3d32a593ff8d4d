import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveToolAction } from "../../src/operations/index.js";
import { MemoryControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, toolAction } from "../store/records.js";

describe("resolveToolAction", () => {
  it("records resolved_at in microseconds, like every other stored time", async () => {
    const store = new MemoryControlPlaneStore();
    const inv = invocation();
    const action = toolAction(inv, 1, { phase: "dispatched" });
    await store.openInvocation(inv, closeCommit(inv).scheduler);
    await store.insertToolAction(action);
    await store.commitInvocation(
      closeCommit(inv, [{ ...action, phase: "settled", settlement: "indeterminate" }]),
    );
    const resolved = await resolveToolAction(
      store,
      action.id,
      { resolution: "effect_absent", note: "no request in the portal log" },
      () => new Date("2026-01-01T12:00:00.123Z"),
    );
    assert.equal(resolved.resolution?.resolvedAt, "2026-01-01T12:00:00.123000Z");
    assert.equal(resolved.updatedAt, "2026-01-01T12:00:00.123000Z");
  });
});

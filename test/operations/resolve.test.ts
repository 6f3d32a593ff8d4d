import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveToolAction } from "../../src/operations/index.js";
import { MemoryControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, toolAction } from "../store/records.js";

/** A store holding one indeterminate tool action; answers the store and the action's id. */
async function indeterminate(): Promise<{ store: MemoryControlPlaneStore; id: string }> {
  const store = new MemoryControlPlaneStore();
  const inv = invocation();
  const action = toolAction(inv, 1, { phase: "dispatched" });
  await store.openInvocation(inv, closeCommit(inv).scheduler);
  await store.insertToolAction(action);
  await store.commitInvocation(
    closeCommit(inv, [{ ...action, phase: "settled", settlement: "indeterminate" }]),
  );
  return { store, id: action.id };
}

describe("resolveToolAction", () => {
  it("refuses a note over 4096 characters as every operator decision does, and records nothing", async () => {
    const { store, id } = await indeterminate();
    await assert.rejects(
      resolveToolAction(store, id, { resolution: "effect_absent", note: "a".repeat(4097) }),
      { code: "operator.note-too-long" },
    );
    assert.equal((await store.getToolAction(id))?.resolution, undefined);
    assert.deepEqual(await store.readDecisionPage(0, 10), []);
  });

  it("refuses a note with a NUL character, which no store reads back as sealed", async () => {
    const { store, id } = await indeterminate();
    await assert.rejects(resolveToolAction(store, id, { resolution: "effect_confirmed", note: "a\u0000b" }), {
      code: "operator.note-invalid",
    });
    assert.equal((await store.getToolAction(id))?.resolution, undefined);
  });

  it("refuses a resolution outside the two, or a note that is not a string, as resolution.invalid", async () => {
    const { store, id } = await indeterminate();
    const wrong = [
      { resolution: "effect_maybe", note: "n" },
      { resolution: "effect_absent", note: 42 },
    ] as unknown as Parameters<typeof resolveToolAction>[2][];
    for (const input of wrong)
      await assert.rejects(resolveToolAction(store, id, input), { code: "resolution.invalid" });
  });

  it("records resolved_at in microseconds, like every other stored time", async () => {
    const { store, id } = await indeterminate();
    const resolved = await resolveToolAction(
      store,
      id,
      { resolution: "effect_absent", note: "no request in the portal log" },
      () => new Date("2026-01-01T12:00:00.123Z"),
    );
    assert.equal(resolved.resolution?.resolvedAt, "2026-01-01T12:00:00.123000Z");
    assert.equal(resolved.updatedAt, "2026-01-01T12:00:00.123000Z");
  });
});

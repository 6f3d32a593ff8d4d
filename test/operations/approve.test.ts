import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { approvalLapsed, approvalsLapsed, decisionTime, newOwnerId } from "../../src/operations/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../src/store/index.js";
import { deadOwnerId } from "../runtime/dead-owner.js";
import { invocation, scheduler, toolAction } from "../store/records.js";

/** Writes `calls` held calls of `participant` in one invocation, its lease held by `owner`. */
async function holding(
  store: ControlPlaneStore,
  participant: string,
  calls: number,
  owner: string,
): Promise<void> {
  const at = decisionTime(new Date());
  const inv = invocation({ id: `inv-${participant}`, participantAddress: participant, createdAt: at });
  await store.openInvocation(inv, scheduler({ participantAddress: participant, attempts: 1, updatedAt: at }));
  for (let k = 1; k <= calls; k += 1)
    await store.insertToolAction(
      toolAction(inv, k, {
        admittedAt: at,
        createdAt: at,
        updatedAt: at,
        approval: { state: "pending", requestedAt: at, timeoutSeconds: 3600 },
      }),
    );
  assert.ok(await store.acquireLease(participant, owner, 3_600_000));
}

describe("which held calls an approve would no longer run", () => {
  it("asks after each participant's runtime once, however many calls it holds, and answers as approvalLapsed does", async () => {
    const store = new MemoryControlPlaneStore();
    await holding(store, "participant.behavior.gone", 3, await deadOwnerId());
    await holding(store, "participant.behavior.live", 2, newOwnerId());
    let leaseReads = 0;
    const counted = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== "getLease" || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          leaseReads += 1;
          return value.apply(target, args);
        };
      },
    });
    const held = await store.listOperations({ kind: "tool_action", state: "accepted" });
    assert.equal(held.length, 5);
    const lapsed = await approvalsLapsed(counted, held);
    assert.equal(leaseReads, 2, "one lease read per participant");
    assert.deepEqual(
      [...lapsed.keys()].sort(),
      held
        .filter((h) => h.participantAddress.endsWith("gone"))
        .map((h) => h.id)
        .sort(),
    );
    for (const h of held) assert.deepEqual(lapsed.get(h.id), await approvalLapsed(store, h.id));
    assert.equal(lapsed.values().next().value?.code, "approval.runtime-gone");
  });
});

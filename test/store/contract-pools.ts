import assert from "node:assert/strict";
import { it } from "node:test";
import type { ResourceLedger } from "../../src/records/index.js";
import { ResourcePoolMovedError } from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { invocation, P1, P2, scheduler } from "./records.js";

const POOL_A = '["pool-a","tenant","tenant:a","inference_tokens","tokens","cumulative_counter","meter:a"]';
const POOL_B = '["pool-b","tenant","tenant:a","image_generations","images","cumulative_counter","meter:b"]';

function ledger(
  operationId: string | undefined,
  poolVersions?: Record<string, number>,
  cumulative = 0,
): ResourceLedger {
  return {
    generation: 1,
    budgets: { tokens: { cumulative, throttled: 0, windowStart: 0, windowUse: 0 } },
    ...(operationId
      ? {
          held: {
            operationId,
            tick: 1,
            generation: 1,
            vector: { tokens: 5 },
            ...(poolVersions ? { poolVersions } : {}),
          },
        }
      : {}),
    log: [],
    logged: 0,
  };
}

/** Shared v3 pools (schema step 19): a new hold is a compare-and-set on the versions of its pools. */
export function poolCases(fixture: FixtureSource): void {
  it("takes a new hold at its pools' versions and moves each pool on by one", async () => {
    const { store } = fixture();
    assert.deepEqual(await store.listResourcePools(), []);
    await store.openInvocation(
      invocation({ id: "inv-1" }),
      scheduler({ resources: ledger("op-1", { [POOL_A]: 0, [POOL_B]: 0 }) }),
    );
    assert.deepEqual(await store.listResourcePools(), [
      { poolKey: POOL_A, version: 1 },
      { poolKey: POOL_B, version: 1 },
    ]);
    // The hold's settlement (no hold) and a rewrite of the same hold leave the pools as they are.
    await store.saveScheduler(scheduler({ resources: ledger("op-1", { [POOL_A]: 0, [POOL_B]: 0 }) }));
    await store.saveScheduler(scheduler({ resources: ledger(undefined, undefined, 5) }));
    assert.deepEqual(
      (await store.listResourcePools()).map((p) => p.version),
      [1, 1],
    );
  });

  it("refuses a hold checked against a pool version another hold moved on, and writes nothing", async () => {
    const { store } = fixture();
    await store.openInvocation(
      invocation({ id: "inv-1" }),
      scheduler({ resources: ledger("op-1", { [POOL_A]: 0 }) }),
    );
    // A second process checked the pool before the first hold landed: its open is refused whole.
    await assert.rejects(
      store.openInvocation(
        invocation({ id: "inv-2", participantAddress: P2 }),
        scheduler({ participantAddress: P2, resources: ledger("op-2", { [POOL_A]: 0, [POOL_B]: 0 }) }),
      ),
      (error: unknown) =>
        error instanceof ResourcePoolMovedError && error.code === "store.resource-pool-moved",
    );
    assert.equal(await store.getInvocation("inv-2"), undefined);
    assert.equal(await store.getScheduler(P2, scheduler().policyAddress), undefined);
    assert.deepEqual(await store.listResourcePools(), [{ poolKey: POOL_A, version: 1 }]);
    // Checked again at the version it now reads, the same hold is taken.
    await store.openInvocation(
      invocation({ id: "inv-2", participantAddress: P2 }),
      scheduler({ participantAddress: P2, resources: ledger("op-2", { [POOL_A]: 1, [POOL_B]: 0 }) }),
    );
    assert.deepEqual(await store.listResourcePools(), [
      { poolKey: POOL_A, version: 2 },
      { poolKey: POOL_B, version: 1 },
    ]);
    assert.equal(
      (await store.getScheduler(P1, scheduler().policyAddress))?.resources?.held?.operationId,
      "op-1",
    );
  });

  it("lets exactly one of two holds checked at the same version through when both write at once", async () => {
    const { store } = fixture();
    const outcomes = await Promise.allSettled(
      [P1, P2].map((participantAddress, i) =>
        store.openInvocation(
          invocation({ id: `inv-${i}`, participantAddress }),
          scheduler({ participantAddress, resources: ledger(`op-${i}`, { [POOL_A]: 0 }) }),
        ),
      ),
    );
    assert.deepEqual(outcomes.map((o) => o.status).sort(), ["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected");
    assert.ok(refused?.status === "rejected" && refused.reason instanceof ResourcePoolMovedError);
    assert.deepEqual(await store.listResourcePools(), [{ poolKey: POOL_A, version: 1 }]);
  });
}

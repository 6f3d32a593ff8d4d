import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CompiledResourceDemand } from "../../../src/compiler/index.js";
import { commitHeld, newLedger, reconciled, reserve, type V3Plan } from "../../../src/runtime/v3/index.js";

function demand(budgetId: string, over: Partial<CompiledResourceDemand> = {}): CompiledResourceDemand {
  return {
    budgetId,
    ownerId: "fleet",
    ownerKind: "fleet",
    ownerAddress: "fleet.primary",
    poolRef: "fleet-pool",
    resourceKind: "action_rate",
    unit: "actions",
    accountingMode: "cumulative_counter",
    meterProfileRef: "raes.action-attempt/v1",
    limit: 3,
    reservation: 1,
    reset: "run",
    windowTicks: null,
    parentBudgetRef: null,
    evidenceRefs: [],
    provenance: "authored",
    ...over,
  };
}

function plan(policyAddress: string, d: CompiledResourceDemand, capacity: number): V3Plan {
  return {
    policyAddress,
    protected: false,
    budgets: [
      {
        demand: d,
        poolKey: "shared",
        poolName: "fleet-pool|fleet.primary|action_rate",
        capacity,
        protectedCapacity: 0,
      },
    ],
  };
}

const at = (operationId: string, tick: number) => ({ operationId, tick, segment: 0, generation: 1 });

describe("the v3 ledger", () => {
  it("sums a shared pool over every policy drawing on it: the second policy is throttled on the pool, not its budget", () => {
    const a = plan("policy.a", demand("actions"), 4);
    const b = plan("policy.b", demand("actions"), 4);
    let la = newLedger(a, 1);
    for (let i = 0; i < 3; i += 1) {
      const r = reserve({ plan: a, ledger: la }, [], at(`a${i}`, 10));
      assert.equal(r.kind, "reserved");
      la = commitHeld(a, r.ledger, { actions: 1 }, 0);
    }
    const lb = newLedger(b, 1);
    const first = reserve({ plan: b, ledger: lb }, [{ plan: a, ledger: la }], at("b0", 10));
    assert.equal(first.kind, "reserved");
    const second = reserve(
      { plan: b, ledger: commitHeld(b, first.ledger, { actions: 1 }, 0) },
      [{ plan: a, ledger: la }],
      at("b1", 10),
    );
    assert.equal(second.kind, "throttled");
    assert.deepEqual(second.kind === "throttled" && second.throttle, {
      budgetId: "actions",
      requested: 1,
      capacityKind: "shared pool",
    });
    assert.equal(second.ledger.held, undefined, "nothing is held after a throttle");
  });

  it("opens a new window every window_ticks for a windowed budget", () => {
    const p = plan(
      "policy.a",
      demand("actions", { accountingMode: "windowed_counter", windowTicks: 100 }),
      10,
    );
    let l = newLedger(p, 1);
    for (let i = 0; i < 3; i += 1) {
      const r = reserve({ plan: p, ledger: l }, [], at(`x${i}`, 90));
      assert.equal(r.kind, "reserved");
      l = commitHeld(p, r.ledger, { actions: 1 }, 0);
    }
    assert.equal(reserve({ plan: p, ledger: l }, [], at("x3", 99)).kind, "throttled");
    assert.equal(reserve({ plan: p, ledger: l }, [], at("x3", 100)).kind, "reserved");
  });

  it("reconciles to a new generation: time_segment budgets clear, run budgets keep their totals", () => {
    const seg = demand("seg", { reset: "time_segment" });
    const run = demand("run");
    const p: V3Plan = {
      policyAddress: "policy.a",
      protected: false,
      budgets: [
        { demand: run, poolKey: "p1", poolName: "p1", capacity: 10, protectedCapacity: 0 },
        { demand: seg, poolKey: "p2", poolName: "p2", capacity: 10, protectedCapacity: 0 },
      ],
    };
    const r = reserve({ plan: p, ledger: newLedger(p, 1) }, [], at("o", 5));
    assert.equal(r.kind, "reserved");
    const after = reconciled(p, commitHeld(p, r.ledger, { run: 1, seg: 1 }, 0), 2);
    assert.equal(after.generation, 2);
    assert.equal(after.budgets.run?.cumulative, 1);
    assert.equal(after.budgets.seg?.cumulative, 0);
  });
});

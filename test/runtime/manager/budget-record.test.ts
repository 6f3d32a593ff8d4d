import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import type { ResourceBudgetEvent, ResourceBudgetEventRecord } from "../../../src/records/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { MeasuringRuntime, V3_TRACES, v3Manifest, v3Model } from "../v3/harness.js";

const SEED = "42".repeat(32);

function open(store: string, runtime = new MeasuringRuntime(0)): Promise<RuntimeManager> {
  return RuntimeManager.open({
    model: v3Model(join(V3_TRACES, "images-run-limit.sdl.yaml")),
    manifest: v3Manifest(),
    runtime,
    store,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: SEED },
    ],
    log: () => undefined,
  });
}

async function stored(store: ControlPlaneStore): Promise<ResourceBudgetEventRecord[]> {
  const out: ResourceBudgetEventRecord[] = [];
  for (let after = 0; ; ) {
    const page = await store.listBudgetEvents({ afterSequence: after, limit: 100 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page.at(-1)?.sequence ?? after;
  }
}

/** The store's transitions as manager events: one per budget each names, as `budgetEvents` lists them. */
function key(e: { transition: string; operation_id: string; budget_id: string; tick: number }): string {
  return `${e.transition} ${e.operation_id} ${e.budget_id} ${e.tick}`;
}
function storedKeys(rows: readonly ResourceBudgetEventRecord[]): string[] {
  return rows
    .flatMap((r) =>
      Object.keys(r.entry.requested).map((budget_id) =>
        key({
          transition: r.entry.transition,
          operation_id: r.entry.operationId,
          budget_id,
          tick: r.entry.tick,
        }),
      ),
    )
    .sort();
}
const keys = (events: readonly ResourceBudgetEvent[]) => events.map(key).sort();

describe("RuntimeManager.resourceBudgetEvents() returns every budget event", () => {
  it("lists every transition of a run far past a schedule's 64 logged operations, and again after a reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-budget-record-"));
    const url = `sqlite:${join(dir, "cp.db")}`;
    const first = await open(url);
    let before: ResourceBudgetEvent[];
    try {
      await first.step(90);
      before = first.resourceBudgetEvents();
      const throttles = before.filter((e) => e.transition === "throttle");
      const counted = first.resourceBudgets().find((b) => b.budget_id === "images")?.throttled ?? 0;
      assert.ok(throttles.length > 64, `throttled ${throttles.length}`);
      assert.equal(throttles.length, counted);
      // Five attempts reserved and committed all eight budgets; nothing else reached the runtime.
      assert.equal(before.filter((e) => e.transition === "reserve").length, 5 * 8);
      assert.equal(before.filter((e) => e.transition === "commit").length, 5 * 8);
      assert.deepEqual(keys(before), storedKeys(await stored(first.store)));
      // An outside check may await it: the same whole array.
      assert.deepEqual(await first.resourceBudgetEvents(), before);
    } finally {
      await first.close();
    }
    // Another manager taking the same store lists what the store kept, then adds its own.
    const second = await open(url);
    try {
      assert.deepEqual(second.resourceBudgetEvents(), before);
      await second.step(3);
      const after = second.resourceBudgetEvents();
      assert.deepEqual(after.slice(0, before.length), before);
      assert.equal(after.length, before.length + 3);
      assert.deepEqual(keys(after), storedKeys(await stored(second.store)));
    } finally {
      await second.close();
    }
  });
});

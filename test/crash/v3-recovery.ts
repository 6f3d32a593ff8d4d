import assert from "node:assert/strict";
import { join } from "node:path";
import { type ResourceBudgetEventRecord, RuntimeManager } from "../../src/index.js";
import { ROOT } from "../helpers/example.js";
import { budgetsOf, v3Manifest, v3Model } from "../runtime/v3/harness.js";
import { CRASH_OWNER } from "./kill-points.js";
import { sigkillAtAnnouncedPoint } from "./kill-run.js";
import { V2_CRASH_CONTROL, V2_CRASH_STEPS } from "./v2-harness.js";
import { DeterministicV3Runtime, V3_CRASH_MEASURE } from "./v3-harness.js";

const CHILD = join(ROOT, "test", "helpers", "child-crash-v3.ts");
const CLOCK = "time.clock.scenario-clock";
const STEP_TICKS = 10;

/** The native calls the v3 crash rounds kill at (the uninterrupted run makes more than 30). */
export function plannedV3Kills(rounds: number): number[] {
  return Array.from({ length: rounds }, (_, r) => 1 + ((r * 7) % 30));
}

/**
 * RAES's accounting of a history: every attempt the history records commits its measured vector
 * (the harness measures `V3_CRASH_MEASURE`, else the reservation); an attempt without a result (the
 * consumed one) releases its reservation. No reset happens, so nothing is cleared.
 */
function raesAccounting(attempts: number): Record<string, Record<string, number>> {
  const reservations: Record<string, [number, number]> = {
    accelerator: [1000, 60000],
    concurrency: [1, 1],
    "fleet-actions": [1, 2400],
    images: [1, 40],
    "participant-actions": [1, 24],
    "range-actions": [1, 240],
    storage: [4096, 1048576],
    tokens: [500, 20000],
  };
  const out: Record<string, Record<string, number>> = {};
  for (const [budget, [reserved, limit]] of Object.entries(reservations))
    out[budget] = {
      reserved: 0,
      cumulative_use: attempts * (V3_CRASH_MEASURE[budget] ?? reserved),
      current_use: 0,
      throttled: 0,
      generation: 0,
      limit,
    };
  return out;
}

/** SIGKILLs the child with the `killAt`-th call's reservation held, reopens, runs on and checks the budgets. */
export async function killAndResumeV3(url: string, killAt: number): Promise<void> {
  const { point } = await sigkillAtAnnouncedPoint(CHILD, [url, String(killAt)]);
  const consumed = point.slice("POINT ".length);

  const seen: string[] = [];
  const manager = await RuntimeManager.open({
    model: v3Model(),
    manifest: v3Manifest(),
    runtime: new DeterministicV3Runtime(new Set(), async (request) => {
      seen.push(request.actionInstanceId);
    }),
    store: url,
    ownerId: CRASH_OWNER,
    stochasticControls: [V2_CRASH_CONTROL],
    log: () => undefined,
  });
  try {
    // Right after the reopen: the interrupted invocation's reservation is released, nothing is held.
    const released = manager
      .resourceBudgetEvents()
      .filter((e) => e.operation_id === consumed && e.transition === "release");
    assert.equal(released.length, 8, "the held vector is released, one event per budget");
    for (const b of manager.resourceBudgets()) assert.equal(b.reserved, 0);
    const clock = await manager.store.getClock(CLOCK);
    const remaining = V2_CRASH_STEPS - (clock?.tick ?? 0) / STEP_TICKS;
    if (remaining > 0) await manager.step(remaining);
    assert.ok(!seen.includes(consumed), "the consumed attempt never reaches the native runtime again");
    const attempts = (await manager.history()).filter(
      (e) => e.event_type === "observation_emitted" && e.invocation_tool_context === undefined,
    );
    assert.ok(!attempts.some((e) => e.action_instance_id === consumed));
    assert.deepEqual(budgetsOf(manager), raesAccounting(attempts.length));
    // Every attempt in history committed exactly once.
    const commits = manager
      .resourceBudgetEvents()
      .filter((e) => e.transition === "commit" && e.budget_id === "images");
    assert.deepEqual(
      commits.map((e) => e.operation_id).sort(),
      attempts.map((e) => e.action_instance_id).sort(),
    );
    await assertBudgetEventsWhole(
      manager,
      consumed,
      attempts.map((e) => e.action_instance_id),
    );
  } finally {
    await manager.close();
  }
}

/**
 * The store's budget events after a kill and a recovery (schema step 22): each schedule's numbered
 * 1..n with none missing or twice, n its ledger's count; the consumed attempt reserved and released
 * once; every attempt in history reserved and committed once.
 */
async function assertBudgetEventsWhole(
  manager: RuntimeManager,
  consumed: string,
  attempted: readonly (string | undefined)[],
): Promise<void> {
  const stored: ResourceBudgetEventRecord[] = [];
  for (let after = 0; ; ) {
    const page = await manager.store.listBudgetEvents({ afterSequence: after, limit: 500 });
    if (page.length === 0) break;
    stored.push(...page);
    after = page.at(-1)?.sequence ?? after;
  }
  for (const record of await manager.store.listSchedulers()) {
    if (!record.resources) continue;
    const seqs = stored
      .filter(
        (e) => e.participantAddress === record.participantAddress && e.policyAddress === record.policyAddress,
      )
      .map((e) => e.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: record.resources.events ?? 0 }, (_, i) => i + 1),
      "no budget event lost or recorded twice",
    );
  }
  const of = (operationId: string | undefined, transition: string) =>
    stored.filter((e) => e.entry.operationId === operationId && e.entry.transition === transition).length;
  assert.deepEqual(
    ["reserve", "commit", "release"].map((t) => of(consumed, t)),
    [1, 0, 1],
  );
  for (const id of attempted)
    assert.deepEqual(
      ["reserve", "commit", "release"].map((t) => of(id, t)),
      [1, 1, 0],
    );
}

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import type { ResourceThrottle } from "../../../src/runtime/index.js";
import { MemoryControlPlaneStore, type SchedulerRecord } from "../../../src/store/index.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { MeasuringRuntime, twoParticipantModel, v3Manifest } from "./harness.js";

/** Native calls in flight across both processes' runtimes, and the most ever at once. */
class Gauge {
  now = 0;
  most = 0;
}

/** Measures every requirement at its reservation, and stays in flight over a few turns of the event loop. */
class OverlappingRuntime extends MeasuringRuntime {
  constructor(readonly gauge: Gauge) {
    super(1_000_000);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.gauge.now += 1;
    this.gauge.most = Math.max(this.gauge.most, this.gauge.now);
    try {
      for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
      return await super.modelAction(request, snapshot, context);
    } finally {
      this.gauge.now -= 1;
    }
  }
}

const seed = "42".repeat(32);

/** Two managers (two processes' worth: own owner ids, own runtimes) on one store, stepped at once. */
async function runTwo(store: () => MemoryControlPlaneStore | string, steps: number) {
  const model = twoParticipantModel();
  const gauge = new Gauge();
  const throttles: ResourceThrottle[] = [];
  const managers: RuntimeManager[] = [];
  const runtimes: OverlappingRuntime[] = [];
  for (const ownerId of ["host-a", "host-b"]) {
    const runtime = new OverlappingRuntime(gauge);
    runtimes.push(runtime);
    managers.push(
      await RuntimeManager.open({
        model,
        manifest: v3Manifest(),
        runtime,
        store: store(),
        ownerId,
        log: () => undefined,
        stochasticControls: [
          { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: seed },
        ],
        observer: { resourceThrottled: (t) => throttles.push(t) },
      }),
    );
  }
  const [a, b] = managers as [RuntimeManager, RuntimeManager];
  try {
    for (let i = 0; i < steps; i += 1) await Promise.all([a.step(1), b.step(1)]);
    const rows: SchedulerRecord[] = await a.store.listSchedulers();
    return { gauge, throttles, runtimes, rows };
  } finally {
    await a.close();
    await b.close();
  }
}

/** The sum over every stored schedule of a budget's committed use and throttles. */
function totals(rows: readonly SchedulerRecord[], budgetId: string) {
  let used = 0;
  let throttled = 0;
  for (const r of rows) {
    used += r.resources?.budgets[budgetId]?.cumulative ?? 0;
    throttled += r.resources?.budgets[budgetId]?.throttled ?? 0;
  }
  return { used, throttled };
}

function assertSharedPoolsHold(run: Awaited<ReturnType<typeof runTwo>>): void {
  const { gauge, throttles, runtimes, rows } = run;
  assert.deepEqual(
    runtimes.map((r) => r.seen.length > 0),
    [true, true],
    "each process ran its own participant",
  );
  const calls = runtimes.flatMap((r) => r.seen);
  assert.equal(new Set(calls).size, calls.length, "no action reached a native runtime twice");
  // images: limit 5 for the policy, one per action, across both processes.
  assert.equal(calls.length, 5);
  assert.equal(totals(rows, "images").used, 5);
  assert.ok(totals(rows, "images").throttled > 0);
  assert.ok(
    throttles.some((t) => t.budgetId === "images" && t.code === "runtime.participant-resource-throttled"),
  );
  // concurrent actions: one pool of capacity 1 shared by both processes.
  assert.equal(gauge.most, 1, "never two native calls in flight against a pool of capacity 1");
  assert.ok(
    rows.every((r) => r.resources?.held === undefined),
    "every reservation settled",
  );
}

describe("v3 pools shared by processes on one store", () => {
  it("memory store: two managers never exceed a shared budget or pool, and record the throttles", async () => {
    const store = new MemoryControlPlaneStore();
    assertSharedPoolsHold(await runTwo(() => store, 30));
  });

  it("SQLite: two managers on one file never exceed a shared budget or pool, and record the throttles", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v3-pools-"));
    try {
      assertSharedPoolsHold(await runTwo(() => `sqlite:${join(dir, "store.db")}`, 30));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });
  it("PostgreSQL: two managers on one schema never exceed a shared budget or pool, and record the throttles", async (t) => {
    if (!(await postgresAvailable("v3 shared pools"))) return t.skip("PostgreSQL unavailable");
    const { url, drop } = freshSchema();
    drops.push(drop);
    assertSharedPoolsHold(await runTwo(() => url, 30));
  });
});

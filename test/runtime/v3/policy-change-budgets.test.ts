import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import { resourceUseRows } from "../../../src/records/index.js";
import { openControlPlaneStore } from "../../../src/store/index.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { MeasuringRuntime, V3_EXAMPLE, v3Manifest, v3Model } from "./harness.js";

const pgAvailable = await postgresAvailable("v3 budget limits at a policy change on PostgreSQL");
const CONTROLS = [
  { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
];

function open(store: string, model: ReturnType<typeof v3Model>, allowPolicyChange = false) {
  return RuntimeManager.open({
    model,
    manifest: v3Manifest(),
    runtime: new MeasuringRuntime(0),
    store,
    stochasticControls: CONTROLS,
    log: () => undefined,
    ...(allowPolicyChange ? { allowPolicyChange: true } : {}),
  });
}

/** The stored budget rows (`raes operations --budgets`) of the images budget, as limit and RAES generation. */
async function storedImages(url: string): Promise<{ limit: number; generation: number } | undefined> {
  const store = await openControlPlaneStore(url, { create: false });
  try {
    const row = resourceUseRows(await store.listSchedulers()).find((r) => r.budget_id === "images");
    return row && { limit: row.limit, generation: row.generation };
  } finally {
    await store.close();
  }
}

async function limitChanged(url: string, dir: string) {
  const a = await open(url, v3Model());
  await a.step(3);
  await a.close();
  assert.deepEqual(await storedImages(url), { limit: 40, generation: 0 });

  const edited = join(dir, "edited.sdl.yaml");
  const text = readFileSync(V3_EXAMPLE, "utf8");
  assert.equal(text.match(/limit: 40$/gm)?.length, 1);
  writeFileSync(edited, text.replace(/limit: 40$/m, "limit: 39"));
  const b = await open(url, v3Model(edited), true);
  try {
    const view = b.resourceBudgets().find((r) => r.budget_id === "images");
    assert.equal(view?.limit, 39);
    // Before any further commit, the store says what the manager says.
    assert.deepEqual(await storedImages(url), { limit: view?.limit, generation: view?.generation });
  } finally {
    await b.close();
  }
}

describe("an allowed policy change that edits a v3 budget limit", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-v3-policy-"));
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("SQLite file: the stored ledger takes the new limit and generation with the policy_change decision", async () => {
    await limitChanged(`sqlite:${join(dir, "v3.db")}`, dir);
  });

  it("PostgreSQL: the stored ledger takes the new limit and generation with the policy_change decision", {
    skip: pgAvailable ? false : "POSTGRES UNAVAILABLE",
  }, async () => {
    const { url, drop } = freshSchema("raes_v3_policy");
    drops.push(drop);
    await limitChanged(url, dir);
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, policyDigest, type RuntimeModel } from "../../../src/compiler/index.js";
import { RuntimeErrorCode, RuntimeManager } from "../../../src/index.js";
import { hasErrors, loadScenario } from "../../../src/sdl/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import { EXAMPLE, EXAMPLE_SCENARIO, exampleManifest } from "../../helpers/example.js";
import { RecordingRuntime } from "../harnesses.js";

const CLOCK = "time.clock.scenario-clock";
/** RAES's answer to the same edit (tools/record-raes-policy-change.py). */
const RAES = JSON.parse(
  readFileSync(
    join(import.meta.dirname, "..", "..", "fixtures", "raes-policy-digest", "policy-change.json"),
    "utf8",
  ),
) as { cases: { edit: string; codes: string[]; addresses: string[]; state_unchanged: boolean }[] };

function modelOf(text: string): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(text, { source: "text" });
  assert.equal(hasErrors(diagnostics), false);
  assert.ok(scenario);
  return compileScenario(scenario);
}

const TEXT = readFileSync(EXAMPLE_SCENARIO, "utf8");
const ORIGINAL = modelOf(TEXT);
/** The policy edited as RAES's recorded case: failure_policy stop → continue. */
const EDITED = modelOf(TEXT.replace("    failure_policy: stop\n", "    failure_policy: continue\n"));

function open(store: ControlPlaneStore | string, model: RuntimeModel, allowPolicyChange = false) {
  return RuntimeManager.open({
    model,
    manifest: exampleManifest(),
    runtime: new RecordingRuntime(),
    store,
    log: () => undefined,
    ...(allowPolicyChange ? { allowPolicyChange } : {}),
  });
}

/** What a store holds: scheduler records, the clock and the number of history events. */
async function held(url: ControlPlaneStore | string) {
  const store = typeof url === "string" ? await openControlPlaneStore(url) : url;
  try {
    return {
      schedulers: await store.listSchedulers(),
      clock: await store.getClock(CLOCK),
      events: (await store.listEvents()).length,
    };
  } finally {
    if (typeof url === "string") await store.close();
  }
}

function digestOf(model: RuntimeModel): string {
  const policy = model.autonomousPolicies[EXAMPLE.policy];
  assert.ok(policy);
  return policyDigest(model, policy);
}

async function changeCase(url: ControlPlaneStore | string): Promise<void> {
  const first = await open(url, ORIGINAL);
  await first.step(1);
  await first.close();
  const before = await held(url);
  assert.equal(before.schedulers[0]?.policyDigest, digestOf(ORIGINAL));

  const raes = RAES.cases.find((c) => c.edit === "failure_policy");
  assert.ok(raes);
  const refusal = await open(url, EDITED).then(
    () => assert.fail("a reopen with an edited policy must be refused"),
    (error: { code?: string; message?: string }) => error,
  );
  assert.deepEqual([refusal.code], raes.codes);
  assert.equal(refusal.code, RuntimeErrorCode.activity_state_conflict);
  for (const address of raes.addresses) assert.ok(refusal.message?.includes(address), refusal.message);
  // As RAES: nothing written (state_unchanged), and the unchanged policy still opens.
  assert.equal(raes.state_unchanged, true);
  assert.deepEqual(await held(url), before);
  await (await open(url, ORIGINAL)).close();

  const allowed = await open(url, EDITED, true);
  await allowed.close();
  const after = await held(url);
  assert.equal(after.clock?.segment, (before.clock?.segment ?? 0) + 1, "a new segment");
  assert.equal(after.schedulers[0]?.policyDigest, digestOf(EDITED), "recorded under the new policy");
  // The new policy is now the stored one: a plain reopen with it is accepted, the old one refused.
  await (await open(url, EDITED)).close();
  await assert.rejects(open(url, ORIGINAL), { code: RuntimeErrorCode.activity_state_conflict });
}

describe("reopening a store with an edited policy", () => {
  it("the digest of the edit differs", () => assert.notEqual(digestOf(ORIGINAL), digestOf(EDITED)));
  it("memory", () => changeCase(new MemoryControlPlaneStore()));
  it("sqlite", () => changeCase(`sqlite:${join(mkdtempSync(join(tmpdir(), "raes-policy-")), "a.db")}`));
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, policyDigest, type RuntimeModel } from "../../../src/compiler/index.js";
import { verifyStore } from "../../../src/evidence/index.js";
import { type PolicyChangeAllowance, RuntimeErrorCode, RuntimeManager } from "../../../src/index.js";
import type { SchedulerRecord } from "../../../src/records/index.js";
import { hasErrors, loadScenario } from "../../../src/sdl/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import { readTimelineInput, renderTimelineHtml } from "../../../src/timeline/index.js";
import { EXAMPLE, EXAMPLE_SCENARIO, exampleManifest } from "../../helpers/example.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
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

function open(
  store: ControlPlaneStore | string,
  model: RuntimeModel,
  allowPolicyChange: boolean | PolicyChangeAllowance = false,
) {
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
      decisions: await store.readDecisionPage(0, 100),
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

  assert.deepEqual(before.decisions, [], "no decision before the change");
  // The schedule's record under the new policy is written only with its decision (recordDecision, one
  // transaction): a plain save of it would leave a changed policy in no operator chain.
  await withStore(url, async (store) => {
    const allowed = await open(guarded(store, digestOf(EDITED)), EDITED, {
      operator: "carol",
      note: "failure_policy relaxed",
    });
    await allowed.close();
  });
  const after = await held(url);
  assert.equal(after.clock?.segment, (before.clock?.segment ?? 0) + 1, "a new segment");
  assert.equal(after.schedulers[0]?.policyDigest, digestOf(EDITED), "recorded under the new policy");
  assert.deepEqual(
    after.decisions.map(({ decided_at: at, chain_digest: digest, ...d }) => {
      assert.match(at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.match(digest, /^sha256:[0-9a-f]{64}$/);
      return d;
    }),
    [
      {
        kind: "policy_change",
        subject: EXAMPLE.participant,
        operator: "carol",
        note: "failure_policy relaxed",
        policy_address: EXAMPLE.policy,
        previous_policy_digest: digestOf(ORIGINAL),
        policy_digest: digestOf(EDITED),
        sequence: 1,
      },
    ],
    "one policy_change decision naming the schedule, both digests, who and why",
  );
  await withStore(url, async (store) => {
    const report = await verifyStore(store);
    assert.equal(report.ok, true, JSON.stringify(report.failure ?? report.operator.failure));
    assert.equal(report.operator.decisions, 1);
    const page = renderTimelineHtml(await readTimelineInput(store));
    assert.match(
      page,
      /data-decision="policy_change"><code>policy_change<\/code> by <strong>carol<\/strong>/,
    );
    assert.ok(page.includes(digestOf(ORIGINAL)) && page.includes(digestOf(EDITED)), "both digests shown");
  });
  // The new policy is now the stored one: a plain reopen with it is accepted, the old one refused.
  await (await open(url, EDITED)).close();
  await assert.rejects(open(url, ORIGINAL), { code: RuntimeErrorCode.activity_state_conflict });
  assert.equal((await held(url)).decisions.length, 1, "a reopen under the same policy decides nothing");
}

/**
 * `store` whose saveScheduler refuses to move a record to `digest` from another policy digest: that
 * change must come with its decision (recordDecision); later saves under `digest` are plain.
 */
function guarded(store: ControlPlaneStore, digest: string): ControlPlaneStore {
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === "saveScheduler")
        return async (record: SchedulerRecord, ...rest: unknown[]) => {
          const stored = await target.getScheduler(record.participantAddress, record.policyAddress);
          if (record.policyDigest === digest && stored?.policyDigest !== digest)
            throw new Error("saved under the new policy without a decision");
          return (value as (...a: unknown[]) => unknown).call(target, record, ...rest);
        };
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function withStore(url: ControlPlaneStore | string, work: (s: ControlPlaneStore) => Promise<void>) {
  const store = typeof url === "string" ? await openControlPlaneStore(url) : url;
  try {
    await work(store);
  } finally {
    if (typeof url === "string") await store.close();
  }
}

describe("reopening a store with an edited policy", () => {
  it("the digest of the edit differs", () => assert.notEqual(digestOf(ORIGINAL), digestOf(EDITED)));
  it("memory", () => changeCase(new MemoryControlPlaneStore()));
  it("sqlite", () => changeCase(`sqlite:${join(mkdtempSync(join(tmpdir(), "raes-policy-")), "a.db")}`));
  it("postgres", async (t) => {
    if (!(await postgresAvailable("policy change decision"))) return t.skip("PostgreSQL unavailable");
    const { url, drop } = freshSchema("raes_policy");
    try {
      await changeCase(url);
    } finally {
      await drop();
    }
  });
});

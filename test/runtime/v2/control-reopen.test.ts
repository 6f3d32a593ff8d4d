import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { RuntimeErrorCode, RuntimeManager } from "../../../src/index.js";
import { controlFingerprint, decodePublicSeed, deriveStreamKey } from "../../../src/random/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { EveryKthFails, v2Manifest } from "./harness.js";
import { compileFile, V2_EXAMPLE } from "./trace.js";

const P = "participant.behavior.participant-agent";
const POLICY = "participant.autonomous-execution.participant-behavior";
const SEED = "42".repeat(32);
const OTHER_SEED = "a1".repeat(32);

const control = (namespace: string, publicSeed: string) => ({
  controlId: "green-activity-policy",
  namespace,
  publicSeed,
});

function open(store: ControlPlaneStore | string, namespace: string, seed: string) {
  return RuntimeManager.open({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime: new EveryKthFails(3, "target_unavailable"),
    store,
    stochasticControls: [control(namespace, seed)],
    log: () => undefined,
  });
}

/** What a store holds for the run: scheduler records and the number of history events. */
async function held(url: ControlPlaneStore | string) {
  const store = typeof url === "string" ? await openControlPlaneStore(url) : url;
  try {
    return { schedulers: await store.listSchedulers(), events: (await store.listEvents()).length };
  } finally {
    if (typeof url === "string") await store.close();
  }
}

async function reopenCase(url: ControlPlaneStore | string): Promise<void> {
  const first = await open(url, "green-activity", SEED);
  await first.step(10);
  await first.close();
  const before = await held(url);
  const [record] = before.schedulers;
  const key = deriveStreamKey("blake3-xof-participant-v1", decodePublicSeed(SEED));
  // One-way: the control's fingerprint, never the seed or the key.
  assert.equal(record?.streamFingerprint, controlFingerprint(key, "green-activity"));
  assert.match(record?.streamFingerprint ?? "", /^[0-9a-f]{32}$/);
  assert.ok(!SEED.includes(record?.streamFingerprint ?? "-"));
  assert.ok(
    !Buffer.from(key)
      .toString("hex")
      .includes(record?.streamFingerprint ?? "-"),
  );
  assert.equal(record?.maxActionAttempts, 120);

  for (const [namespace, seed] of [
    ["green-activity", OTHER_SEED],
    ["other-ns", SEED],
  ] as const) {
    const refusal = await open(url, namespace, seed).then(
      () => assert.fail("a reopen with another control must be refused"),
      (error: { code?: string; message?: string }) => error,
    );
    assert.equal(refusal.code, RuntimeErrorCode.activity_state_conflict);
    assert.equal(refusal.code, "runtime.participant-autonomous-state-conflict");
    assert.match(refusal.message ?? "", /started under another stochastic control/);
    assert.ok(!(refusal.message ?? "").includes(seed.slice(0, 8)), "the refusal names no seed");
  }
  // Refused before anything was written, and without keeping the lease: the right control goes on.
  assert.deepEqual(await held(url), before);
  const again = await open(url, "green-activity", SEED);
  try {
    assert.deepEqual(
      again.schedulers().map((s) => s.participantAddress),
      [P],
    );
    await again.step(20);
    assert.ok((await held(url)).events > before.events, "the run goes on under its own control");
  } finally {
    await again.close();
  }
}

async function oldRowCase(url: ControlPlaneStore | string): Promise<void> {
  const first = await open(url, "green-activity", SEED);
  await first.step(5);
  await first.close();
  // A row written before schema step 7 carries neither field: the next open records them.
  const store = typeof url === "string" ? await openControlPlaneStore(url) : url;
  const stored = await store.getScheduler(P, POLICY);
  assert.ok(stored);
  const { streamFingerprint: _f, maxActionAttempts: _m, ...old } = stored;
  await store.saveScheduler(old);
  if (typeof url === "string") await store.close();
  const reopened = await open(url, "green-activity", SEED);
  await reopened.close();
  const [record] = (await held(url)).schedulers;
  assert.equal(record?.streamFingerprint, stored.streamFingerprint);
  assert.equal(record?.maxActionAttempts, 120);
}

describe("v2: reopening a run with another stochastic control is refused at open", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-v2-reopen-"));
  it("memory", async () => {
    await reopenCase(new MemoryControlPlaneStore());
    await oldRowCase(new MemoryControlPlaneStore());
  });
  it("sqlite", async () => {
    await reopenCase(`sqlite:${join(dir, "a.db")}`);
    await oldRowCase(`sqlite:${join(dir, "b.db")}`);
  });
});

const postgres = await postgresAvailable("v2 control reopen on PostgreSQL");
describe("v2: reopening a run with another stochastic control is refused at open (PostgreSQL)", {
  skip: postgres ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const schemas: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of schemas) await drop();
  });
  it("postgres", async () => {
    const a = freshSchema("raes_reopen");
    const b = freshSchema("raes_reopen");
    schemas.push(a.drop, b.drop);
    await reopenCase(a.url);
    await oldRowCase(b.url);
  });
});

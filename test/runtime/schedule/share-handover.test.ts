import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { generatedManifest, generateScenario } from "../../../bench/shared/index.js";
import { compileScenario, loadScenario, RuntimeManager } from "../../../src/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { assertEffectsOnlyOnce, dispatchedIds, readStoreState } from "../../crash/store-state.js";
import ScaleHarness from "../../fixtures/runtimes/scale-harness.js";
import { readEffects } from "../../helpers/child-harness.js";

const M = 20;
const TTL = 1_000;

describe("participants shared by processes on one store (memory, injected clock)", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-share-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "generated.yaml");
  writeFileSync(path, generateScenario(M));
  const { scenario } = loadScenario(path);
  assert.ok(scenario);
  const model = compileScenario(scenario);
  const manifest = generatedManifest(model);
  const effects = join(dir, "effects");
  let t = 1_000_000;
  const store = new MemoryControlPlaneStore({ now: () => t });
  const open = (ownerId: string) =>
    RuntimeManager.open({
      model,
      manifest,
      runtime: new ScaleHarness({ effects, sleepMs: 0 }),
      store,
      ownerId,
      leaseTtlMs: TTL,
      now: () => t,
      log: () => undefined,
    });
  const owned = (m: RuntimeManager) => new Set(m.schedulers().map((s) => s.participantAddress));
  const shares = (ms: RuntimeManager[]) => ms.map((m) => m.share().owned);
  /** Each participant's invocation ticks, in ordinal order. */
  const ticks = async () => {
    const state = await readStoreState(store);
    const by = new Map<string, number[]>();
    for (const i of [...state.invocations].sort((a, b) => a.ordinal - b.ordinal))
      by.set(i.participantAddress, [...(by.get(i.participantAddress) ?? []), i.tick]);
    return { by, state };
  };

  it("a joiner gets its share at the next step boundaries, each participant owned once, no tick run twice or skipped; a dead process's share is taken after its lease expired", async () => {
    const a = await open("host-a");
    assert.deepEqual(a.share(), { owned: M, participants: M, processes: 1, target: M });
    const b = await open("host-b");
    assert.deepEqual(b.share(), { owned: 0, participants: M, processes: 2, target: 10 });
    for (let i = 0; i < 2; i += 1) {
      await a.step();
      await b.step();
    }
    assert.deepEqual(shares([a, b]), [10, 10]);
    const c = await open("host-c");
    for (let i = 0; i < 3; i += 1) for (const m of [a, b, c]) await m.step();
    assert.deepEqual(shares([a, b, c]).sort(), [6, 7, 7], "within one of M/N once stable");
    const all = [...owned(a), ...owned(b), ...owned(c)];
    assert.equal(new Set(all).size, M, "every participant is owned by exactly one process");

    const before = await ticks();
    for (const [participant, list] of before.by) {
      assert.deepEqual(
        list,
        list.map((_, k) => k * 10),
        `${participant} ran a tick twice or skipped one across hand-overs`,
      );
    }

    // b dies: it neither steps nor closes. Until its lease expires, nobody takes its participants.
    const orphans = owned(b);
    await a.step();
    await c.step();
    assert.deepEqual(
      [...owned(a), ...owned(c)].filter((p) => orphans.has(p)),
      [],
    );
    t += TTL + 1;
    for (let i = 0; i < 2; i += 1) {
      await a.step();
      await c.step();
    }
    assert.deepEqual(shares([a, c]), [10, 10]);
    assert.deepEqual(a.share().processes, 2);
    const afterDeath = await ticks();
    for (const p of orphans) {
      const list = afterDeath.by.get(p) ?? [];
      assert.ok(list.length > (before.by.get(p)?.length ?? 0), `${p} did not continue elsewhere`);
      assert.equal(new Set(list).size, list.length, `${p} ran a tick twice`);
    }
    const { state } = afterDeath;
    assert.equal(state.invocations.filter((i) => i.state === "running").length, 0);
    assert.ok(state.invocations.every((i) => i.state === "succeeded"));
    assertEffectsOnlyOnce(readEffects(effects), dispatchedIds(state));
    assert.equal(readEffects(effects).length, state.invocations.length, "one effect per invocation");
    await a.close();
    await c.close();
  });
});

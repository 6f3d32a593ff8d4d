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

describe("a process whose step lasts almost a lease lifetime (memory, injected clock)", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-slow-step-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "generated.yaml");
  writeFileSync(path, generateScenario(4));
  const { scenario } = loadScenario(path);
  assert.ok(scenario);
  const model = compileScenario(scenario);
  const manifest = generatedManifest(model);

  it("stays live for the others through it; nothing of it is taken, and its invocations succeed", async () => {
    let t = 1_000_000;
    const store = new MemoryControlPlaneStore({ now: () => t });
    /** Runs once, inside the next invocation's model call: the slow part of the step. */
    let slowPart: (() => Promise<void>) | undefined;
    class SlowOnce extends ScaleHarness {
      override async modelAction(...args: Parameters<ScaleHarness["modelAction"]>) {
        const slow = slowPart;
        slowPart = undefined;
        await slow?.();
        return super.modelAction(...args);
      }
    }
    const open = (ownerId: string, runtime: ScaleHarness) =>
      RuntimeManager.open({
        model,
        manifest,
        runtime,
        store,
        ownerId,
        leaseTtlMs: TTL,
        now: () => t,
        log: () => undefined,
      });
    const a = await open("host-a", new SlowOnce({ sleepMs: 0 }));
    const b = await open("host-b", new ScaleHarness({ sleepMs: 0 }));
    for (let i = 0; i < 2; i += 1) {
      await a.step();
      await b.step();
    }
    assert.deepEqual([a.share().owned, b.share().owned], [2, 2]);
    const held = new Set(a.schedulers().map((s) => s.participantAddress));
    // a's step lasts 0.95 of a lease lifetime while b keeps stepping.
    const seenByB: number[][] = [];
    slowPart = async () => {
      for (let k = 0; k < 19; k += 1) {
        t += TTL / 20;
        await b.step();
        seenByB.push([b.share().owned, b.share().processes]);
      }
    };
    const { invocations } = await a.step();
    assert.equal(slowPart, undefined, "the slow part ran");
    assert.deepEqual(
      invocations.map((i) => i.state),
      ["succeeded", "succeeded"],
    );
    assert.ok(
      seenByB.every(([owned, processes]) => owned === 2 && processes === 2),
      `b saw a live and took nothing of it: ${JSON.stringify(seenByB)}`,
    );
    assert.deepEqual(new Set(a.schedulers().map((s) => s.participantAddress)), held);
    await a.step();
    assert.equal(a.share().owned, 2);
    await a.close();
    await b.close();
  });
});

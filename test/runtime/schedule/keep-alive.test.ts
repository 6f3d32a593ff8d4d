import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { generatedManifest, generateScenario } from "../../../bench/shared/index.js";
import { compileScenario, loadScenario, RuntimeManager } from "../../../src/index.js";
import { ParticipantLeases } from "../../../src/runtime/schedule/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../../src/store/index.js";
import ScaleHarness from "../../fixtures/runtimes/scale-harness.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";

const A = "participant:keep/a";
const B = "participant:keep/b";

function leases(
  store: ControlPlaneStore,
  ownerId: string,
  leaseTtlMs: number,
  nowMs = Date.now,
  log?: (line: string) => void,
) {
  return new ParticipantLeases({
    store,
    ownerId,
    leaseTtlMs,
    nowMs,
    participants: [A, B],
    ...(log ? { log } : {}),
  });
}

/** The store, counting calls of the named methods. */
function counting(store: ControlPlaneStore, names: readonly string[]) {
  const calls = new Map<string, number>();
  const counted = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (typeof property === "string" && names.includes(property))
        return (...args: unknown[]) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return value.bind(target);
    },
  });
  return { store: counted, calls };
}

describe("the keep-alive of a process's participants", () => {
  it("keeps a process that does not step live, and its leases under the same tokens, past several lifetimes", async () => {
    const store = new MemoryControlPlaneStore();
    const a = leases(store, "host-a", 200);
    await a.rebalance();
    const tokens = [a.fenceFor(A)?.token, a.fenceFor(B)?.token];
    a.startKeepAlive();
    try {
      await sleep(900);
      const b = leases(store, "host-b", 200);
      await b.rebalance();
      assert.deepEqual(b.share(), { owned: 0, participants: 2, processes: 2, target: 1 });
      const held = await Promise.all([store.getLease(A), store.getLease(B)]);
      assert.deepEqual(
        held.map((l) => [l?.ownerId, l?.token]),
        [
          ["host-a", tokens[0]],
          ["host-a", tokens[1]],
        ],
      );
      assert.ok(
        held.every((l) => (l?.expiresAt ?? 0) > Date.now()),
        "both leases are live",
      );
      await a.releaseAll();
      await b.rebalance();
      assert.equal(b.share().owned, 2, "released, they are taken at once");
    } finally {
      await a.releaseAll();
    }
  });

  it("beats and renews only what no step renewed for a quarter of a lifetime", async () => {
    let t = 1_000_000;
    const { store, calls } = counting(new MemoryControlPlaneStore({ now: () => t }), [
      "heartbeatProcess",
      "renewLeases",
    ]);
    const a = leases(store, "host-a", 1_000, () => t);
    await a.rebalance();
    calls.clear();
    t += 249;
    await a.keepAlive();
    assert.deepEqual([...calls], [], "fresh from the step: nothing written");
    t += 1;
    await a.keepAlive();
    assert.deepEqual(
      [...calls],
      [
        ["heartbeatProcess", 1],
        ["renewLeases", 1],
      ],
    );
    assert.equal((await store.getLease(A))?.expiresAt, t + 1_000);
  });

  it("never takes back a lease lost meanwhile, and never changes what the process holds", async () => {
    let t = 1_000_000;
    const store = new MemoryControlPlaneStore({ now: () => t });
    const a = leases(store, "host-a", 1_000, () => t);
    await a.rebalance();
    const fence = a.fenceFor(A);
    t += 1_000;
    const taken = await store.acquireLease(A, "host-b", 1_000);
    assert.ok(taken);
    await a.keepAlive();
    assert.deepEqual(await store.getLease(A), taken, "the new owner's lease is untouched");
    assert.equal((await store.getLease(B))?.expiresAt, t + 1_000, "the other one is renewed");
    assert.deepEqual(a.fenceFor(A), fence, "its loss is found at the next step boundary, not here");
    await a.rebalance();
    assert.equal(a.fenceFor(A), undefined);
  });

  it("stops when the process leaves: no heartbeat after it, so the others take its share at once", async () => {
    const store = new MemoryControlPlaneStore();
    const a = leases(store, "host-a", 120);
    await a.rebalance();
    a.startKeepAlive();
    await sleep(100);
    await a.releaseAll();
    await sleep(300);
    const members = await store.heartbeatProcess("host-b", 120);
    assert.deepEqual(
      members.map((m) => m.ownerId),
      ["host-b"],
    );
    a.startKeepAlive();
    await sleep(100);
    assert.deepEqual(
      (await store.heartbeatProcess("host-b", 120)).map((m) => m.ownerId),
      ["host-b"],
      "a released process does not start again",
    );
  });
});

describe("a runtime whose step outlasts its lease lifetime (SQLite, real clock)", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-keep-alive-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "generated.yaml");
  writeFileSync(path, generateScenario(2));
  const { scenario } = loadScenario(path);
  assert.ok(scenario);
  const model = compileScenario(scenario);
  const manifest = generatedManifest(model);
  const TTL = 300;
  /** Sleeps `slowMs` (set by the test) inside each invocation's model call: an agent at work. */
  class Slow extends ScaleHarness {
    slowMs = 0;
    override async modelAction(...args: Parameters<ScaleHarness["modelAction"]>) {
      if (this.slowMs > 0) await sleep(this.slowMs);
      return super.modelAction(...args);
    }
  }
  const open = (db: string, ownerId: string, runtime: Slow, keepAlive?: boolean) =>
    RuntimeManager.open({
      model,
      manifest,
      runtime,
      store: `sqlite:${join(dir, db)}`,
      ownerId,
      leaseTtlMs: TTL,
      log: () => undefined,
      ...(keepAlive === undefined ? {} : { keepAlive }),
    });

  /**
   * Two processes sharing both participants; `a` then runs `work` (by default one step lasting 4
   * lease lifetimes) while `b` keeps stepping.
   */
  async function longStep(
    db: string,
    keepAlive: boolean | undefined,
    work: (a: RuntimeManager, slow: Slow) => Promise<string[]> = async (a, slow) => {
      slow.slowMs = 4 * TTL;
      return (await a.step()).invocations.map((i) => i.state);
    },
  ) {
    const slow = new Slow({ sleepMs: 0 });
    const a = await open(db, "host-a", slow, keepAlive);
    const b = await open(db, "host-b", new Slow({ sleepMs: 0 }));
    try {
      for (let i = 0; i < 2; i += 1) {
        await a.step();
        await b.step();
      }
      const held = a.schedulers().map((s) => s.participantAddress);
      assert.deepEqual([a.share().owned, b.share().owned], [1, 1]);
      const seenByB: string[][] = [];
      let stepping = true;
      const others = (async () => {
        while (stepping) {
          await b.step().catch(() => undefined);
          seenByB.push(b.schedulers().map((s) => s.participantAddress));
          await sleep(TTL / 3);
        }
      })();
      const stepped = await work(a, slow).catch((error: unknown) => [String(error)]);
      stepping = false;
      await others;
      return { held, stepped, seenByB };
    } finally {
      await a.close();
      await b.close();
    }
  }

  it("keeps its participant while another process steps, and the long step's invocation succeeds", async () => {
    const { held, stepped, seenByB } = await longStep("kept.db", undefined);
    assert.deepEqual(stepped, ["succeeded"]);
    assert.ok(seenByB.length >= 6, `b stepped all through a's step: ${seenByB.length} steps`);
    assert.ok(
      seenByB.every((owned) => !owned.some((p) => held.includes(p))),
      `b never took a's participant: ${JSON.stringify(seenByB)}`,
    );
  });

  it("without the keep-alive, the same step loses its participant to the other process", async () => {
    const { held, stepped, seenByB } = await longStep("lost.db", false);
    assert.notDeepEqual(stepped, ["succeeded"]);
    assert.ok(
      seenByB.some((owned) => held.every((p) => owned.includes(p))),
      `b took a's participant: ${JSON.stringify(seenByB)}`,
    );
  });

  it("keeps its participant through a paced run's sleep longer than a lease lifetime", async () => {
    const { held, stepped, seenByB } = await longStep("paced.db", undefined, async (a) => {
      const summary = await a.run({ tickMs: 4 * TTL, steps: 1 });
      return [summary.ended, String(summary.invocations > 0), String(a.share().owned)];
    });
    assert.deepEqual(stepped, ["steps", "true", "1"]);
    assert.ok(
      seenByB.every((owned) => !owned.some((p) => held.includes(p))),
      `b never took a's participant: ${JSON.stringify(seenByB)}`,
    );
  });
});

describe("a step's reads beside its heartbeat", () => {
  it("sends the heartbeat before it reads the services, so one waits on the other no more", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-beat-ahead-"));
    try {
      const path = join(dir, "generated.yaml");
      writeFileSync(path, generateScenario(1));
      const { scenario } = loadScenario(path);
      assert.ok(scenario);
      const model = compileScenario(scenario);
      const events: string[] = [];
      const memory = new MemoryControlPlaneStore();
      // A store answering each call a little later, as a server does, and recording when calls start and end.
      const later =
        (method: "heartbeatProcess" | "listParticipantServices") =>
        async (_args: unknown[], call: () => Promise<unknown>) => {
          events.push(`start ${method}`);
          await sleep(20);
          const answer = await call();
          events.push(`end ${method}`);
          return answer;
        };
      const store = aroundStoreMethod(
        aroundStoreMethod(memory, "heartbeatProcess", later("heartbeatProcess")),
        "listParticipantServices",
        later("listParticipantServices"),
      );
      const manager = await RuntimeManager.open({
        model,
        manifest: generatedManifest(model),
        runtime: new ScaleHarness({ sleepMs: 0 }),
        store,
        log: () => undefined,
      });
      try {
        events.length = 0;
        await manager.step();
        assert.deepEqual(events.slice(0, 2), ["start heartbeatProcess", "start listParticipantServices"]);
        assert.equal(
          events.filter((e) => e === "start heartbeatProcess").length,
          1,
          "one heartbeat per step",
        );
      } finally {
        await manager.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the keep-alive's bounds", () => {
  it("runs no more often than every 25 ms, whatever the lease lifetime", async () => {
    const { store, calls } = counting(new MemoryControlPlaneStore(), ["heartbeatProcess"]);
    const a = leases(store, "host-a", 2);
    await a.rebalance();
    calls.clear();
    a.startKeepAlive();
    await sleep(250);
    await a.releaseAll();
    const beats = calls.get("heartbeatProcess") ?? 0;
    assert.ok(beats >= 1 && beats <= 12, `${beats} heartbeats in 250 ms`);
  });

  it("tells a store outage once, and its end once", async () => {
    const memory = new MemoryControlPlaneStore();
    let failing = false;
    const store = aroundStoreMethod(memory, "heartbeatProcess", (_args, call) =>
      failing ? Promise.reject(new Error("server gone")) : call(),
    );
    const lines: string[] = [];
    const a = leases(store, "host-a", 100, Date.now, (line) => lines.push(line));
    await a.rebalance();
    a.startKeepAlive();
    failing = true;
    await sleep(300);
    failing = false;
    await sleep(200);
    await a.releaseAll();
    assert.deepEqual(lines, [
      "keep-alive: the heartbeat and leases could not be renewed: server gone",
      "keep-alive: the heartbeat and leases are renewed again",
    ]);
  });
});

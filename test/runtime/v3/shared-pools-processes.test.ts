import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ControlPlaneStore, openControlPlaneStore } from "../../../src/store/index.js";
import { ChildScript } from "../../helpers/child-process.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";

const CHILD = "test/helpers/child-v3-pools.ts";

/** The budgets the run-limit example shares between the policy's two participants, with their limits. */
const IMAGES = { id: "images", limit: 5 };
const CONCURRENCY = { id: "concurrency", limit: 1 };

/** What the store says right now: the holds in flight and the committed use of the shared budgets. */
async function poolState(store: ControlPlaneStore) {
  const rows = (await store.listSchedulers()).filter((r) => r.resources !== undefined);
  const holds = rows.flatMap((r) => (r.resources?.held ? [r.resources.held] : []));
  const held = (id: string) => holds.reduce((sum, h) => sum + (h.vector[id] ?? 0), 0);
  const committed = (id: string) =>
    rows.reduce((sum, r) => sum + (r.resources?.budgets[id]?.cumulative ?? 0), 0);
  const throttled = (id: string) =>
    rows.reduce((sum, r) => sum + (r.resources?.budgets[id]?.throttled ?? 0), 0);
  return {
    holds: holds.map((h) => h.operationId).sort(),
    concurrencyHeld: held(CONCURRENCY.id),
    imagesHeld: held(IMAGES.id),
    imagesCommitted: committed(IMAGES.id),
    throttled: throttled(IMAGES.id) + throttled(CONCURRENCY.id),
  };
}

/** The pools are never over-reserved in the state the store holds now (holds are committed before the call). */
async function assertWithinCapacity(store: ControlPlaneStore, where: string) {
  const s = await poolState(store);
  assert.ok(s.concurrencyHeld <= CONCURRENCY.limit, `${where}: concurrency ${JSON.stringify(s)}`);
  assert.ok(s.imagesCommitted + s.imagesHeld <= IMAGES.limit, `${where}: images ${JSON.stringify(s)}`);
  return s;
}

/** A parent-paced child: one step at a time, each native call held until the parent returns it. */
class PacedChild {
  readonly script: ChildScript;
  #read = 0;
  readonly calls: string[] = [];
  constructor(
    readonly name: string,
    url: string,
  ) {
    this.script = ChildScript.start(CHILD, [url]);
  }
  async ready() {
    this.#read = (await this.script.waitForPrefix("READY")).index + 1;
  }
  /** Sends `step` and reads up to its first native call (`{call}`) or its end (`{stepped}`). */
  async step(): Promise<{ call?: string; stepped?: { owned: string[] } }> {
    this.script.send("step");
    return this.#next();
  }
  /** Returns the held native call and reads on to the next call or the step's end. */
  async return(): Promise<{ call?: string; stepped?: { owned: string[] } }> {
    this.script.send("return");
    return this.#next();
  }
  async #next(): Promise<{ call?: string; stepped?: { owned: string[] } }> {
    const { line, index } = await this.script.waitFor(
      (l) => l.startsWith("CALL ") || l.startsWith("STEPPED ") || l.startsWith("FAILED"),
      this.#read,
      `${this.name}: a call or the step's end`,
    );
    this.#read = index + 1;
    if (line.startsWith("FAILED")) throw new Error(`${this.name}: ${line}`);
    if (line.startsWith("CALL ")) {
      const call = line.slice(5);
      this.calls.push(call);
      return { call };
    }
    return { stepped: JSON.parse(line.slice(8)) as { owned: string[] } };
  }
  async close() {
    this.script.send("close");
    await this.script.waitForPrefix("CLOSED", this.#read).catch(() => undefined);
    await this.script.stop();
  }
}

/** Two paced children on `url`: A opened first (it takes both participants until it sees B), then B. */
async function openPair(url: string) {
  const a = new PacedChild("A", url);
  await a.ready();
  const b = new PacedChild("B", url);
  await b.ready();
  return { a, b };
}

/**
 * One round: `outer` steps; while each of its native calls is held (its vector reserved and committed),
 * the store is checked and `inner` runs a whole step, which must not reach its native runtime: the
 * concurrency pool (capacity 1) is taken. `onOuterCall` may end the round instead (returns true).
 */
async function round(
  store: ControlPlaneStore,
  outer: PacedChild,
  inner: PacedChild | undefined,
  onOuterCall?: (call: string) => Promise<boolean>,
): Promise<{ stepped?: { owned: string[] } }> {
  let o = await outer.step();
  while (o.call !== undefined) {
    await assertWithinCapacity(store, `${outer.name} holding ${o.call}`);
    if (onOuterCall && (await onOuterCall(o.call))) return {};
    if (inner) {
      const i = await inner.step();
      assert.equal(
        i.call,
        undefined,
        `${inner.name} reached its native runtime while ${outer.name} held the pool`,
      );
      await assertWithinCapacity(store, `${inner.name} stepped while ${outer.name} held`);
    }
    o = await outer.return();
  }
  await assertWithinCapacity(store, `${outer.name} stepped`);
  return o;
}

async function neverOverReserved(url: string) {
  const store = await openControlPlaneStore(url);
  const { a, b } = await openPair(url);
  try {
    for (let n = 0; n < 12; n += 1) await round(store, n % 2 === 0 ? a : b, n % 2 === 0 ? b : a);
    const end = await poolState(store);
    assert.equal(
      end.imagesCommitted,
      IMAGES.limit,
      "the two processes used the whole images budget together",
    );
    assert.deepEqual(end.holds, []);
    assert.ok(end.throttled > 0, "the processes throttled each other and the spent budget");
    const calls = [...a.calls, ...b.calls];
    assert.equal(calls.length, IMAGES.limit, "no more native calls than the shared budget allows");
    assert.equal(new Set(calls).size, calls.length, "no action reached a native runtime twice");
    assert.ok(a.calls.length > 0 && b.calls.length > 0, "each process ran its own participant");
    const participantOf = (call: string) => call.split(":")[1];
    const aRan = new Set(a.calls.map(participantOf));
    const bRan = new Set(b.calls.map(participantOf));
    assert.equal(aRan.size, 1, "the share-out gave A one participant");
    assert.equal(bRan.size, 1, "the share-out gave B one participant");
    assert.notDeepEqual([...aRan], [...bRan], "A and B ran different participants");
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
}

async function sigkillMidCall(url: string) {
  const store = await openControlPlaneStore(url);
  const { a, b } = await openPair(url);
  try {
    let killed: string | undefined;
    for (let n = 0; killed === undefined; n += 1) {
      assert.ok(n < 12, "A reached a native call");
      await round(store, n % 2 === 0 ? a : b, undefined, async (call) => {
        if (n % 2 !== 0) return false;
        killed = call;
        await a.script.signal("SIGKILL");
        return true;
      });
    }
    const orphaned = await poolState(store);
    assert.deepEqual(orphaned.holds, [killed], "the dead process's reservation is still held");
    assert.equal(orphaned.concurrencyHeld, CONCURRENCY.limit);
    // B takes the dead process's participant over (its owner is provably dead), and recovery settles the
    // interrupted invocation's reservation as the invocation is settled: released, never committed.
    const taken = await round(store, b, undefined);
    assert.equal(taken.stepped?.owned.length, 2, "B took the dead process's participant");
    const settled = await poolState(store);
    assert.deepEqual(settled.holds, []);
    const rows = await store.listSchedulers();
    const release = rows
      .flatMap((r) => r.resources?.log ?? [])
      .find((e) => e.operationId === killed && e.transition === "release");
    assert.equal(release?.code, "runtime.participant-resource-measurement-untrusted");
    assert.equal(
      settled.imagesCommitted,
      a.calls.length - 1 + b.calls.length,
      "every returned call counted as used, the interrupted one not",
    );
    // The capacity came back: B alone now spends the whole images budget.
    for (let n = 0; n < 12; n += 1) await round(store, b, undefined);
    const end = await poolState(store);
    assert.equal(end.imagesCommitted, IMAGES.limit);
    assert.deepEqual(end.holds, []);
    assert.ok(!b.calls.includes(killed ?? ""), "the interrupted action never reached a native runtime again");
    assert.equal(new Set(b.calls).size, b.calls.length);
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
}

describe("v3 pools shared by two processes on one store", () => {
  const dirs: string[] = [];
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    for (const drop of drops) await drop();
  });
  const sqlite = () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v3-procs-"));
    dirs.push(dir);
    return `sqlite:${join(dir, "store.db")}`;
  };
  const postgres = async (t: { skip(reason: string): void }) => {
    if (!(await postgresAvailable("v3 pools shared by processes"))) {
      t.skip("PostgreSQL unavailable");
      return undefined;
    }
    const { url, drop } = freshSchema();
    drops.push(drop);
    return url;
  };

  it("SQLite: two processes drawing on one pool never over-reserve it at any committed state", async () => {
    await neverOverReserved(sqlite());
  });
  it("SQLite: a SIGKILL mid-call leaves a reservation the survivor settles, and the capacity returns", async () => {
    await sigkillMidCall(sqlite());
  });
  it("PostgreSQL: two processes drawing on one pool never over-reserve it at any committed state", async (t) => {
    const url = await postgres(t);
    if (url) await neverOverReserved(url);
  });
  it("PostgreSQL: a SIGKILL mid-call leaves a reservation the survivor settles, and the capacity returns", async (t) => {
    const url = await postgres(t);
    if (url) await sigkillMidCall(url);
  });
});

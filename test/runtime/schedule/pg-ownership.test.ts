import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore, resolveToolAction } from "../../../src/index.js";
import {
  assertEffectsOnlyOnce,
  assertHistoryExact,
  dispatchedIds,
  readStoreState,
} from "../../crash/store-state.js";
import { exit, parseStep, steps, waitSteps } from "../../helpers/child-contender-log.js";
import { readEffects } from "../../helpers/child-harness.js";
import { ChildScript } from "../../helpers/child-process.js";
import { EXAMPLE, ROOT } from "../../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../../store/pg-available.js";

const CONTENDER = join(ROOT, "test", "helpers", "child-contender.ts");
const STEP_INTERVAL_MS = 100;
const available = await postgresAvailable("PostgreSQL multi-process ownership");

interface LeaseRow {
  owner_id: string | null;
  token: number;
  expires_at: number;
}

describe("PostgreSQL: two runtime processes contend for one participant", {
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-owners-"));
  const children: ChildScript[] = [];
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const child of children) await child.stop();
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function fixture() {
    const { schema, url, drop } = freshSchema("raes_owner");
    drops.push(drop);
    const lease = async () => {
      const [row] = await adminQuery<LeaseRow>(
        `SELECT owner_id, token, expires_at::bigint AS expires_at FROM ${schema}.leases WHERE participant_address = $1`,
        [EXAMPLE.participant],
      );
      assert.ok(row, "no lease row");
      return { ...row, token: Number(row.token), expires_at: Number(row.expires_at) };
    };
    const start = (name: string, ttlMs: number, interval = String(STEP_INTERVAL_MS)) => {
      const child = ChildScript.start(CONTENDER, [
        url,
        join(dir, `${schema}-${name}.effects`),
        name,
        String(ttlMs),
        interval,
      ]);
      children.push(child);
      return child;
    };
    const effects = (name: string) => readEffects(join(dir, `${schema}-${name}.effects`));
    return { url, lease, start, effects };
  }

  it("exactly one owns it; after the owner is SIGKILLed mid-invocation the other takes over only once the lease expired, and recovers", async () => {
    const ttlMs = 2_500;
    const { url, lease, start, effects } = fixture();
    const procs = { a: start("owner-a", ttlMs), b: start("owner-b", ttlMs) };
    await Promise.all([procs.a.waitForPrefix("OPENED"), procs.b.waitForPrefix("OPENED")]);
    await Promise.all([waitSteps(procs.a, 3, 0), waitSteps(procs.b, 3, 0)]);
    const ownerName = steps(procs.a)[0]?.owned === 1 ? "a" : "b";
    const owner = procs[ownerName];
    const other = procs[ownerName === "a" ? "b" : "a"];
    const otherName = ownerName === "a" ? "owner-b" : "owner-a";

    owner.send("ARM");
    const point = await owner.waitForPrefix("POINT after-dispatch", owner.lines.length);
    const aliveUntil = other.lines.length;
    await owner.signal("SIGKILL");
    const dead = await lease();
    assert.equal(dead.owner_id, `owner-${ownerName}`);

    assert.ok(
      steps(owner, 0, point.index).every((s) => s.owned === 1),
      "the owner held the participant at every step",
    );
    const whileAlive = steps(other, 0, aliveUntil);
    assert.ok(whileAlive.length >= 3);
    for (const s of whileAlive)
      assert.deepEqual(s, { owned: 0, lifecycle: "-", invocations: [] }, "the other owned nothing");
    assert.deepEqual(effects(otherName), [], "the other ran no tool while the owner lived");

    const takeover = await other.waitFor((l) => parseStep(l)?.owned === 1, aliveUntil, "takeover");
    const taken = await lease();
    assert.equal(taken.owner_id, otherName);
    assert.equal(taken.token, dead.token + 1, "a takeover takes a new fencing token");
    assert.ok(
      taken.expires_at - ttlMs >= dead.expires_at,
      "taken over before the dead owner's lease expired",
    );
    assert.equal(parseStep(takeover.line)?.lifecycle, "stopped", "recovery stopped the scheduler");
    assert.deepEqual(parseStep(takeover.line)?.invocations, []);

    const interrupted =
      owner.lines
        .filter((l) => l.startsWith("INVOCATION "))
        .at(-1)
        ?.slice("INVOCATION ".length) ?? "";
    const store = await openControlPlaneStore(url);
    try {
      const state = await readStoreState(store);
      assert.equal(state.invocations.find((i) => i.id === interrupted)?.state, "failed");
      assert.deepEqual(
        state.toolActions.filter((a) => a.invocationId === interrupted).map((a) => a.settlement),
        ["indeterminate"],
      );
      assert.equal(state.schedulers[0]?.stopReason, "tool_action_indeterminate");
      assert.equal(state.schedulers[0]?.nextOrdinal, (state.invocations.at(-1)?.ordinal ?? -1) + 1);
      assertHistoryExact(state, new Set([interrupted]));
      const ran = [...effects(`owner-${ownerName}`), ...effects(otherName)];
      assertEffectsOnlyOnce(ran, dispatchedIds(state));
      assert.ok(!ran.includes(`${interrupted}:tool=1`), "the killed tool never ran");

      await resolveToolAction(store, `${interrupted}:tool=1`, {
        resolution: "effect_absent",
        note: "owner killed",
      });
      other.send("RESUME");
      const resumed = await other.waitForPrefix("RESUMED", takeover.index);
      await other.waitFor(
        (l) => (parseStep(l)?.invocations.length ?? 0) > 0,
        resumed.index,
        "a new invocation",
      );
      const next = steps(other, resumed.index).find((s) => s.invocations.length > 0);
      assert.match(next?.invocations[0] ?? "", /=succeeded$/);
      await exit(other);
      const final = await readStoreState(store);
      assertHistoryExact(final, new Set([interrupted]));
      assertEffectsOnlyOnce([...effects(`owner-${ownerName}`), ...effects(otherName)], dispatchedIds(final));
    } finally {
      await store.close();
    }
  });

  it("after a takeover the new owner's invocations observe the shared clock later than the old owner's", async () => {
    const { url, start } = fixture();
    const a = start("fast-a", 2_000);
    assert.equal((await a.waitForPrefix("OPENED")).line, "OPENED owned=1");
    await waitSteps(a, 1, 0);
    const b = start("manual-b", 2_000, "manual");
    assert.equal((await b.waitForPrefix("OPENED")).line, "OPENED owned=0");
    await waitSteps(a, 30);
    a.send("ARM");
    await a.waitForPrefix("POINT after-dispatch", a.lines.length);
    await a.signal("SIGKILL");
    const interrupted =
      a.lines
        .filter((l) => l.startsWith("INVOCATION "))
        .at(-1)
        ?.slice("INVOCATION ".length) ?? "";
    for (let turn = 0; ; turn += 1) {
      assert.ok(turn < 200, "B never took over");
      const at = b.lines.length;
      b.send("STEP");
      if (parseStep((await b.waitForPrefix("STEP ", at)).line)?.owned === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const store = await openControlPlaneStore(url);
    try {
      await resolveToolAction(store, `${interrupted}:tool=1`, {
        resolution: "effect_absent",
        note: "killed",
      });
      const at = b.lines.length;
      b.send("RESUME");
      await b.waitForPrefix("RESUMED", at);
      b.send("STEP");
      assert.match((await b.waitForPrefix("STEP ", at)).line, /invocations=\S+=succeeded$/);
      await exit(b);
      const ticks = (await readStoreState(store)).invocations.map((i) => [i.segment, i.tick]);
      const sorted = [...ticks].sort(([s1 = 0, t1 = 0], [s2 = 0, t2 = 0]) => s1 - s2 || t1 - t2);
      assert.deepEqual(
        ticks,
        sorted,
        `an invocation observed the clock earlier than the one before it (last [segment, tick]: ${JSON.stringify(ticks.slice(-3))})`,
      );
      assert.equal(
        new Set(ticks.map((t) => t.join(":"))).size,
        ticks.length,
        "two invocations observed the same tick",
      );
    } finally {
      await store.close();
    }
  });

  /** A owns and is paused (SIGSTOP) after a dispatch; B takes over once A's lease expired. */
  async function pausedOwnerTakenOver() {
    const f = fixture();
    const a = f.start("paused-a", 2_000);
    assert.equal((await a.waitForPrefix("OPENED")).line, "OPENED owned=1");
    await waitSteps(a, 1, 0);
    // B's own lease outlives everything below, so no later takeover back by A can be legitimate.
    const b = f.start("taker-b", 60_000);
    assert.equal((await b.waitForPrefix("OPENED")).line, "OPENED owned=0");
    a.send("ARM");
    await a.waitForPrefix("POINT after-dispatch", a.lines.length);
    await a.signal("SIGSTOP");
    const takeover = await b.waitFor((l) => parseStep(l)?.owned === 1, 0, "takeover");
    const interrupted =
      a.lines
        .filter((l) => l.startsWith("INVOCATION "))
        .at(-1)
        ?.slice("INVOCATION ".length) ?? "";
    return { ...f, a, b, takeover, interrupted, actionId: `${interrupted}:tool=1` };
  }

  it("a paused owner whose lease was taken over cannot write: complete is refused and its close commit fails with LeaseLostError", async () => {
    const { url, a, b, interrupted, actionId, effects } = await pausedOwnerTakenOver();
    const store = await openControlPlaneStore(url);
    try {
      const recovered = await readStoreState(store);
      assert.equal((await store.getToolAction(actionId))?.settlement, "indeterminate");
      const ranBefore = effects("paused-a");
      assert.ok(!ranBefore.includes(actionId));
      const from = a.lines.length;
      await a.signal("SIGCONT");
      a.send("GO");
      assert.equal(
        (await a.waitForPrefix("REFUSED", from)).line,
        `REFUSED complete ledger_unavailable ${actionId}`,
      );
      assert.match(
        (await a.waitForPrefix("STEP-ERROR", from)).line,
        /^STEP-ERROR LeaseLostError store\.lease-lost /,
      );
      const later = await waitSteps(a, 2);
      for (const s of steps(a, from, later + 1)) assert.equal(s.owned, 0, "the deposed process owns nothing");
      assert.deepEqual(await readStoreState(store), recovered, "the deposed process changed the store");
      assert.equal((await store.getInvocation(interrupted))?.state, "failed");
      assert.deepEqual(
        effects("paused-a"),
        [...ranBefore, actionId],
        "the dispatched tool ran once, after the pause",
      );
      assert.deepEqual(effects("taker-b"), []);
      assert.ok(steps(b).every((s) => s.owned === 0 || s.lifecycle === "stopped"));
    } finally {
      await store.close();
    }
  });

  it("a deposed owner never recovers the new owner's live invocation", async () => {
    const { url, a, b, takeover, actionId, interrupted, effects } = await pausedOwnerTakenOver();
    const store = await openControlPlaneStore(url);
    try {
      await resolveToolAction(store, actionId, {
        resolution: "effect_confirmed",
        note: "the paused owner may run it",
      });
      b.send("ARM");
      b.send("RESUME");
      await b.waitForPrefix("POINT after-dispatch", takeover.index);
      const live =
        b.lines
          .filter((l) => l.startsWith("DISPATCHED "))
          .at(-1)
          ?.slice("DISPATCHED ".length) ?? "";
      const liveInvocation = live.replace(/:tool=1$/, "");
      const from = a.lines.length;
      await a.signal("SIGCONT");
      a.send("GO");
      await a.waitForPrefix("STEP-ERROR", from);
      await waitSteps(a, 3);
      assert.equal(
        (await store.getInvocation(liveInvocation))?.state,
        "running",
        "A recovered B's live invocation",
      );
      assert.equal((await store.getToolAction(live))?.phase, "dispatched");
      const resumedAt = b.lines.length;
      b.send("GO");
      const done = await b.waitFor((l) => (parseStep(l)?.invocations.length ?? 0) > 0, resumedAt, "B's step");
      assert.deepEqual(parseStep(done.line)?.invocations, [`${liveInvocation}=succeeded`]);
      await Promise.all([exit(a), exit(b)]);
      const state = await readStoreState(store);
      assertHistoryExact(state, new Set([interrupted]));
      assertEffectsOnlyOnce([...effects("paused-a"), ...effects("taker-b")], dispatchedIds(state));
    } finally {
      await store.close();
    }
  });
});

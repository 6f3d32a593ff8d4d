import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import type { HistoryEventDraft } from "../../src/records/index.js";
import { StoreConflictError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { CommitSlices } from "../../src/store/postgres/batch.js";
import type { ControlPlaneStore, InvocationCommit } from "../../src/store/types.js";
import { adminQuery, freshSchema, postgresAvailable } from "./pg-available.js";
import { closeCommit, event, invocation, scheduler } from "./records.js";

const available = await postgresAvailable("postgres batched closes");
const dir = mkdtempSync(join(tmpdir(), "raes-pg-batch-"));
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

// More closes than one statement takes (src/store/postgres/batch.ts: 500), so the events are linked
// both while the slices' statements run and while the COPY runs.
const CLOSES = 600;

/** The open invocations and their closes, each with the outer triple. */
function closes(): InvocationCommit[] {
  return Array.from({ length: CLOSES }, (_, ordinal) =>
    closeCommit(invocation({ id: `inv-${String(ordinal).padStart(5, "0")}`, ordinal })),
  );
}

async function opened(url: string, commits: readonly InvocationCommit[]): Promise<ControlPlaneStore> {
  const store = await openControlPlaneStore(url);
  cleanups.unshift(() => store.close());
  for (const { invocation: inv } of commits) {
    await store.openInvocation({ ...inv, state: "running" }, scheduler({ nextOrdinal: inv.ordinal + 1 }));
  }
  return store;
}

/**
 * Two closes, one short statement; the second's 20 000 events are mostly linked while the COPY runs
 * (the statement answers within a few turns of linking).
 */
function manyEvents(): InvocationCommit[] {
  const [first, second] = closes() as [InvocationCommit, InvocationCommit];
  const many = Array.from({ length: 20_000 }, (_, k) =>
    event(second.invocation, "action_attempted", { event_id: `${second.invocation.id}.e${k}` }),
  );
  return [first, { ...second, events: many }];
}

/**
 * `commits` closed by one PostgreSQL store (a fresh schema) and one SQLite store, each opened with
 * them running: the PostgreSQL store, its events, and SQLite's. The SQLite store is closed at once, so
 * its put-off checkpoint's timer ends here, not under a later test's count of timers.
 */
async function committedInBoth(commits: readonly InvocationCommit[], label: string) {
  const place = freshSchema(`raes_batch_${label}`);
  cleanups.push(place.drop);
  const postgres = await opened(place.url, commits);
  const sqlite = await opened(`sqlite:${join(dir, `${label}.db`)}`, commits);
  await postgres.commitInvocations(commits, undefined);
  await sqlite.commitInvocations(commits, undefined);
  const sqliteEvents = await sqlite.listEvents();
  await sqlite.close();
  return { postgres, events: await postgres.listEvents(), sqliteEvents };
}

/** Nothing of a refused batch is in the store: no event, no head moved, every invocation still open. */
async function nothingWritten(store: ControlPlaneStore): Promise<void> {
  assert.deepEqual(await store.listEvents(), []);
  assert.deepEqual(await store.listChainHeads(), []);
  assert.equal((await store.listOpenInvocations()).length, CLOSES);
}

/**
 * Commits `commits` with the `at`-th one's last event made unwritable (a BigInt: the drafts' type
 * rules it out, a caller's bug could still pass one): refused with `error`, nothing written; then the
 * same commits, whole, commit on the same store.
 */
async function refusedThenRetried(
  label: string,
  commits: readonly InvocationCommit[],
  at: number,
  error: RegExp,
): Promise<void> {
  const place = freshSchema(label);
  cleanups.push(place.drop);
  const store = await opened(place.url, closes());
  const target = commits[at] as InvocationCommit;
  const broken: InvocationCommit = {
    ...target,
    events: [
      ...target.events.slice(0, -1),
      { ...(target.events.at(-1) as HistoryEventDraft), unwritable: 1n } as HistoryEventDraft,
    ],
  };
  await assert.rejects(
    store.commitInvocations(
      commits.map((c, i) => (i === at ? broken : c)),
      undefined,
    ),
    error,
  );
  await nothingWritten(store);
  await store.commitInvocations(commits, undefined);
  const events = commits.reduce((sum, c) => sum + c.events.length, 0);
  assert.deepEqual(
    (await store.listEvents()).map((e) => e.sequence),
    Array.from({ length: events }, (_, i) => i + 1),
  );
}

describe("postgres: taking a batch's closes", () => {
  it("takes at least one close each time, however little time it is given, and stops at a slice", () => {
    const slices = new CommitSlices(closes());
    const slice: InvocationCommit[] = [];
    assert.equal(slices.take(slice, 0), false, "out of time after the first close");
    assert.equal(slice.length, 1);
    while (!slices.take(slice, 0)) assert.ok(slice.length < 500);
    assert.equal(slice.length, 500, "a slice holds 500 closes");
    assert.equal(slices.done, false);
    assert.equal(slices.next()?.length, CLOSES - 500);
    assert.equal(slices.next(), undefined);
    assert.equal(slices.done, true);
  });
});

if (!available) {
  it("postgres batched closes", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  describe("postgres: closes of several statements in one transaction", () => {
    it("numbers and chains every event as SQLite does, across statements and the COPY", async () => {
      const { postgres, events, sqliteEvents } = await committedInBoth(closes(), "same");
      assert.equal(events.length, 3 * CLOSES);
      assert.deepEqual(
        events.map((e) => e.sequence),
        events.map((_, i) => i + 1),
      );
      // Each store links its events by itself; the same drafts give the same digests.
      assert.deepEqual(events, sqliteEvents);
      assert.equal((await postgres.listOpenInvocations()).length, 0);
    });

    it("keeps a body's backslashes, newlines and tabs through the COPY, as SQLite does", async () => {
      // COPY's text format gives a backslash, a newline and a tab meanings of their own.
      const special = "C:\\temp\\new\n\\.\n\tend\\N";
      const commits = closes().map((commit, k) => ({
        ...commit,
        events: commit.events.map((e) => ({ ...e, event_id: `${e.event_id}${special}${k}` })),
      }));
      const { events, sqliteEvents } = await committedInBoth(commits, "escapes");
      assert.equal(events.length, 3 * CLOSES);
      assert.ok(events.every((e) => e.event_id.includes(special)));
      assert.deepEqual(events, sqliteEvents);
    });

    it("builds each statement's closes while the statement before it runs", async () => {
      const commits = closes();
      const place = freshSchema("raes_batch_taken");
      cleanups.push(place.drop);
      const store = await opened(place.url, commits);
      // Counts the slice statements the store's connection has sent (a statement the driver queues
      // counts too: it goes as soon as the one before it is answered).
      const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
      const query = proto.query;
      let sent = 0;
      proto.query = function (this: unknown, ...args: unknown[]) {
        const name = (args[0] as { name?: unknown } | undefined)?.name;
        if (typeof name === "string" && name.startsWith("raes_commit_slice")) sent += 1;
        return query.apply(this, args);
      };
      const sentWhenTaken: number[] = [];
      function* taken(): Generator<InvocationCommit> {
        for (const [k, commit] of commits.entries()) {
          if (k === 0 || k === 500) sentWhenTaken.push(sent);
          yield commit;
        }
      }
      try {
        await store.commitInvocations(taken(), undefined);
      } finally {
        proto.query = query;
      }
      assert.deepEqual(sentWhenTaken, [0, 1], "the 501st close is built once the first statement is sent");
      assert.equal((await store.listEvents()).length, 3 * CLOSES);
    });

    it("takes closes built slowly a few at a time, so the driver's read timeout does not fire meanwhile", async () => {
      const commits = closes();
      const place = freshSchema("raes_batch_slow");
      cleanups.push(place.drop);
      await opened(place.url, commits);
      // The driver gives up on an answer 5.5 s after a statement is sent (statement limit + 5 s).
      const store = await openControlPlaneStore(place.url, { statementTimeoutMs: 500 });
      cleanups.unshift(() => store.close());
      function* slow(): Generator<InvocationCommit> {
        for (const [k, commit] of commits.entries()) {
          // The second statement's 100 closes take 6 s to build, while the first one runs.
          const until = performance.now() + (k >= 500 ? 60 : 0);
          while (performance.now() < until) {
            // Building a close: synchronous work the generator cannot interrupt.
          }
          yield commit;
        }
      }
      await store.commitInvocations(slow(), undefined);
      assert.equal((await store.listEvents()).length, 3 * CLOSES);
      assert.deepEqual(await store.listOpenInvocations(), []);
      await store.close();
    });

    it("lets the caller's generator end when the batch fails before every close was taken", async () => {
      const commits = closes();
      const place = freshSchema("raes_batch_abandoned");
      cleanups.push(place.drop);
      const store = await opened(place.url, commits);
      // The first statement finds one of its invocations closed already.
      await store.commitInvocation(commits[100] as InvocationCommit, undefined);
      // Twice as many closes as the store has open invocations: the rest are never reached.
      const more = Array.from({ length: CLOSES }, (_, k) =>
        closeCommit(invocation({ id: `inv-more-${k}`, ordinal: CLOSES + k })),
      );
      let ended = false;
      let taken = 0;
      function* taking(): Generator<InvocationCommit> {
        try {
          for (const commit of [...commits, ...more]) {
            taken += 1;
            yield commit;
          }
        } finally {
          ended = true;
        }
      }
      await assert.rejects(store.commitInvocations(taking(), undefined), StoreConflictError);
      assert.ok(taken < 2 * CLOSES, "the batch failed before every close was taken");
      assert.equal(ended, true, "the generator's finally ran");
      await store.close();
    });

    it("writes nothing when linking fails while the slices' statements run, and stays usable", async () => {
      // The first events are linked while the first statement runs.
      await refusedThenRetried("raes_batch_early", closes(), 0, /BigInt/);
    });

    it("writes nothing when linking fails while the COPY runs, and stays usable", async () => {
      await refusedThenRetried("raes_batch_late", manyEvents(), 1, /BigInt/);
    });

    it("writes nothing when the server refuses the COPY, stops linking, and stays usable", async () => {
      const place = freshSchema("raes_batch_refused");
      cleanups.push(place.drop);
      const store = await opened(place.url, closes());
      // The first row is refused while most events are still to be linked.
      await adminQuery(`CREATE FUNCTION ${place.schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.sequence = 1 THEN RAISE EXCEPTION 'event 1 refused'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON ${place.schema}.history_events
        FOR EACH ROW EXECUTE FUNCTION ${place.schema}.refuse()`);
      const commits = manyEvents();
      await assert.rejects(store.commitInvocations(commits, undefined), /event 1 refused/);
      await nothingWritten(store);
      await adminQuery(`DROP TRIGGER refuse ON ${place.schema}.history_events`);
      await store.commitInvocations(commits, undefined);
      assert.equal((await store.listEvents()).length, 20_003);
    });

    it("holds a bounded part of a large COPY in the socket, not every row linked", async () => {
      // 128 MiB of events, linked faster than the server takes them in.
      const commits = closes()
        .slice(0, 128)
        .map((c, k) => ({
          ...c,
          events: [event(c.invocation, "action_attempted", { event_id: `${k}:${"x".repeat(1 << 20)}` })],
        }));
      const place = freshSchema("raes_batch_socket");
      cleanups.push(place.drop);
      const store = await opened(place.url, commits);
      // Every socket write of the process while the batch commits: the most any socket held unsent.
      const write = Socket.prototype.write;
      let most = 0;
      Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
        const written = write.apply(this, args);
        most = Math.max(most, this.writableLength);
        return written;
      } as Socket["write"];
      try {
        await store.commitInvocations(commits, undefined);
      } finally {
        Socket.prototype.write = write;
      }
      assert.equal((await store.listEvents()).length, 128);
      // What was linked ahead while the slices ran (up to 32 MiB, src/store/postgres/batch.ts) goes
      // out first; after it the socket is let hold 8 MiB (copy.ts), and one turn of linking more.
      assert.ok(most < 48 << 20, `a socket held ${(most / (1 << 20)).toFixed(1)} MiB unsent`);
    });

    it("leaves no timer running once the COPY is over, so the process can exit", async () => {
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
      const before = timers();
      const commits = closes().slice(0, 2);
      const place = freshSchema("raes_batch_timers");
      cleanups.push(place.drop);
      const store = await openControlPlaneStore(place.url);
      for (const { invocation: inv } of commits)
        await store.openInvocation({ ...inv, state: "running" }, scheduler());
      await store.commitInvocations(commits, undefined);
      await store.close();
      // The driver's query timeout timer of the COPY (the store sets one, 15 s) is cleared when it
      // ends. A timer of something else in this process may be passing: it is given two seconds. One
      // that ends meanwhile (a SQLite store's put-off checkpoint, from a test before) leaves fewer.
      const deadline = Date.now() + 2_000;
      while (timers() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(timers() <= before, `${timers()} timers now, ${before} before the batch`);
    });
  });
}

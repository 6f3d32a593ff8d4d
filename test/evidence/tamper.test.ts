import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { ChainBreak, verifyStore } from "../../src/evidence/index.js";
import type { HistoryEvent } from "../../src/records/index.js";
import { type ControlPlaneStore, openControlPlaneStore } from "../../src/store/index.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";
import { closeCommit, invocation, P1, P2, scheduler } from "../store/records.js";

const ANCHOR = { scenario_digest: "sha256:scenario", manifest_digest: "sha256:manifest" };

/** Five closes, P1 and P2 interleaved, one of them a batch of two: 15 events, 3 per close. */
async function fill(
  store: ControlPlaneStore,
  anchor: { scenario_digest: string | null; manifest_digest: string | null } = ANCHOR,
): Promise<HistoryEvent[]> {
  const closes = [
    invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 }),
    invocation({ id: "inv-2", participantAddress: P2, ordinal: 0 }),
    invocation({ id: "inv-3", participantAddress: P1, ordinal: 1 }),
    invocation({ id: "inv-4", participantAddress: P2, ordinal: 1 }),
    invocation({ id: "inv-5", participantAddress: P1, ordinal: 2 }),
  ];
  for (const inv of closes) {
    await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
  }
  const commit = (i: number) => ({ ...closeCommit(closes[i] as never), anchor });
  await store.commitInvocation(commit(0));
  await store.commitInvocations([commit(1), commit(2)]);
  await store.commitInvocation(commit(3));
  await store.commitInvocation(commit(4));
  return store.listEvents();
}

/** Direct SQL against a store's tables, as someone with the database file or a login would run it. */
interface Tables {
  run(sql: string, values?: unknown[]): Promise<void>;
  /** The placeholder of the n-th value. */
  p(n: number): string;
}

/**
 * Moves an event to another participant as each store keeps it: SQLite names the participant in a
 * column its body refers to; PostgreSQL keeps the whole event in its body, beside the column.
 */
async function moveEvent(t: Tables, sequence: number, to: string): Promise<void> {
  if (t.p(1) === "?")
    return t.run("UPDATE history_events SET participant_address = ? WHERE sequence = ?", [to, sequence]);
  await t.run(
    `UPDATE history_events SET participant_address = $1,
       body = replace(body::text, '"participant_address":' || to_json(participant_address)::text,
                      '"participant_address":' || to_json($1::text)::text)::json
     WHERE sequence = $2`,
    [to, sequence],
  );
}

/** Swaps the sequences of two events (through -1, as a unique sequence allows). */
async function swapEvents(t: Tables, a: number, b: number): Promise<void> {
  await t.run(`UPDATE history_events SET sequence = -1 WHERE sequence = ${t.p(1)}`, [a]);
  await t.run(`UPDATE history_events SET sequence = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [a, b]);
  await t.run(`UPDATE history_events SET sequence = ${t.p(1)} WHERE sequence = -1`, [b]);
}

/** Deletes the event at `sequence`. */
async function deleteEvent(t: Tables, sequence: number): Promise<void> {
  await t.run(`DELETE FROM history_events WHERE sequence = ${t.p(1)}`, [sequence]);
}

/** Writes `body` as the stored body of the event at `sequence`. */
async function writeBody(t: Tables, sequence: number, body: string): Promise<void> {
  await t.run(`UPDATE history_events SET body = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [body, sequence]);
}

/** Inserts a copy of the event at `from` (body and chain digest too) at sequence `at`. */
async function insertCopy(t: Tables, at: number, from: number): Promise<void> {
  await t.run(
    `INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest)
     SELECT ${t.p(1)}, participant_address, episode_id, action_instance_id, body, chain_digest
     FROM history_events WHERE sequence = ${t.p(2)}`,
    [at, from],
  );
}

/** A tampering a store must catch, naming the event it touched. */
interface Tampering {
  readonly name: string;
  readonly kind: ChainBreak;
  /** What the failure's detail must say, when its kind alone does not name the tampering. */
  readonly says?: RegExp;
  readonly apply: (
    t: Tables,
    events: readonly HistoryEvent[],
  ) => Promise<{ participant: string; sequence: number }>;
}

/** Sets one key column of the seventh event to `forged`, leaving its body: its participant's chain breaks there. */
function keyColumnEdited(column: "episode_id" | "action_instance_id", forged: string): Tampering {
  return {
    name: `changes one event's ${column} column alone, leaving its body`,
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      await t.run(`UPDATE history_events SET ${column} = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [
        forged,
        target.sequence,
      ]);
      return { participant: target.participant_address, sequence: target.sequence };
    },
  };
}

/** The tamperings every store must catch. */
const TAMPERINGS: readonly Tampering[] = [
  {
    name: "edits one event's body",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      const { sequence: _s, chain_digest: _c, ...draft } = target;
      const edited = { ...draft, action_contract_address: "action:green/something-else" };
      await writeBody(t, target.sequence, JSON.stringify(edited));
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "writes a number beyond a double (1e400) into one event's body",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      const { sequence: _s, chain_digest: _c, ...draft } = target;
      await writeBody(t, target.sequence, JSON.stringify(draft).replace(/}$/, ',"weight":1e400}'));
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "nests 200 000 arrays (PostgreSQL: 2 000) in one event's body (a finding, not a stack overflow)",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      const { sequence: _s, chain_digest: _c, ...draft } = target;
      // PostgreSQL's jsonb refuses such depth itself (its stack check): there, past the bound is enough.
      const depth = t.p(1) === "?" ? 200_000 : 2_000;
      const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      await writeBody(t, target.sequence, JSON.stringify(draft).replace(/}$/, `,"deep":${deep}}`));
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "empties the chain heads and every chain_digest, as if the store were never chained",
    kind: ChainBreak.unchained,
    apply: async (t, events) => {
      await t.run("DELETE FROM history_chains");
      await t.run("UPDATE history_events SET chain_digest = NULL");
      const first = events[0] as HistoryEvent;
      return { participant: first.participant_address, sequence: first.sequence };
    },
  },
  {
    name: "empties the chain heads",
    kind: ChainBreak.truncated,
    apply: async (t, events) => {
      await t.run("DELETE FROM history_chains");
      // The first event: its chain's anchor (scenario and manifest digests) is gone with its head.
      const first = events[0] as HistoryEvent;
      return { participant: first.participant_address, sequence: first.sequence };
    },
  },
  {
    name: "changes one event's chain_digest value",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      await t.run(`UPDATE history_events SET chain_digest = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [
        `sha256:${"0".repeat(64)}`,
        target.sequence,
      ]);
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "changes the chain_digest value of the history's last event",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[events.length - 1] as HistoryEvent;
      await t.run(`UPDATE history_events SET chain_digest = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [
        `sha256:${"0".repeat(64)}`,
        target.sequence,
      ]);
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "deletes one event and renumbers the later ones down, leaving no gap",
    kind: ChainBreak.removed,
    apply: async (t, events) => {
      const target = events[4] as HistoryEvent;
      await deleteEvent(t, target.sequence);
      await t.run(`UPDATE history_events SET sequence = sequence + 1000000 WHERE sequence > ${t.p(1)}`, [
        target.sequence,
      ]);
      await t.run("UPDATE history_events SET sequence = sequence - 1000000 - 1 WHERE sequence > 1000000");
      // Named where the removed event was: its participant's next event now holds that sequence.
      const next = events.find(
        (e) => e.sequence > target.sequence && e.participant_address === target.participant_address,
      ) as HistoryEvent;
      assert.equal(events[5]?.participant_address, target.participant_address);
      return { participant: next.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "swaps two adjacent events of one participant",
    kind: ChainBreak.reordered,
    apply: async (t, events) => {
      const [a, b] = [events[0] as HistoryEvent, events[1] as HistoryEvent];
      assert.equal(a.participant_address, b.participant_address);
      await swapEvents(t, a.sequence, b.sequence);
      return { participant: a.participant_address, sequence: a.sequence };
    },
  },
  {
    name: "deletes one event",
    kind: ChainBreak.removed,
    apply: async (t, events) => {
      const target = events[4] as HistoryEvent;
      await deleteEvent(t, target.sequence);
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "deletes a participant's last event",
    kind: ChainBreak.removed,
    apply: async (t, events) => {
      const target = events[events.length - 1] as HistoryEvent;
      await deleteEvent(t, target.sequence);
      return { participant: target.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "inserts a copy of one event mid-history, renumbering the later ones",
    kind: ChainBreak.inserted,
    apply: async (t, events) => {
      const copied = events[1] as HistoryEvent;
      const at = 8;
      await t.run("UPDATE history_events SET sequence = sequence + 1000000 WHERE sequence >= 8");
      await t.run("UPDATE history_events SET sequence = sequence - 1000000 + 1 WHERE sequence > 1000000");
      await insertCopy(t, at, copied.sequence);
      return { participant: copied.participant_address, sequence: at };
    },
  },
  {
    name: "inserts a copy of a participant's first event at sequence 0, before the history",
    kind: ChainBreak.inserted,
    apply: async (t, events) => {
      const copied = events[0] as HistoryEvent;
      await insertCopy(t, 0, copied.sequence);
      return { participant: copied.participant_address, sequence: 0 };
    },
  },
  {
    name: "changes the event count of a participant's chain head",
    kind: ChainBreak.truncated,
    apply: async (t, events) => {
      const last = events[events.length - 1] as HistoryEvent;
      await t.run(`UPDATE history_chains SET events = events + 1 WHERE participant_address = ${t.p(1)}`, [
        last.participant_address,
      ]);
      return { participant: last.participant_address, sequence: last.sequence };
    },
  },
  {
    name: "reorders two events of one participant",
    kind: ChainBreak.reordered,
    apply: async (t, events) => {
      const [a, b] = [events[0] as HistoryEvent, events[2] as HistoryEvent];
      assert.equal(a.participant_address, b.participant_address);
      await swapEvents(t, a.sequence, b.sequence);
      return { participant: a.participant_address, sequence: a.sequence };
    },
  },
  {
    name: "changes the scenario_digest of one participant's chain head",
    kind: ChainBreak.anchor,
    says: /^the chain head's anchor was changed: its first event was sealed from participant .+'s anchor \(scenario_digest sha256:scenario, manifest_digest sha256:manifest\), the head names scenario_digest sha256:other/,
    apply: async (t, events) => {
      const first = events[0] as HistoryEvent;
      await t.run(
        `UPDATE history_chains SET scenario_digest = 'sha256:other' WHERE participant_address = ${t.p(1)}`,
        [first.participant_address],
      );
      return { participant: first.participant_address, sequence: first.sequence };
    },
  },
  {
    name: "changes the scenario_digest of every chain head alike",
    kind: ChainBreak.edited,
    says: /or its chain head's anchor \(scenario_digest sha256:other, manifest_digest sha256:manifest\) was changed: a chain's first event cannot tell which$/,
    apply: async (t, events) => {
      await t.run("UPDATE history_chains SET scenario_digest = 'sha256:other'");
      const first = events[0] as HistoryEvent;
      return { participant: first.participant_address, sequence: first.sequence };
    },
  },
  {
    name: "moves one event to the other participant",
    kind: ChainBreak.edited,
    says: /^its participant was changed: it was sealed in participant .+'s chain, as that participant's next event$/,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      const other = events.find((e) => e.participant_address !== target.participant_address) as HistoryEvent;
      await moveEvent(t, target.sequence, other.participant_address);
      return { participant: other.participant_address, sequence: target.sequence };
    },
  },
  {
    name: "changes one event's participant_address column alone, leaving its body",
    kind: ChainBreak.edited,
    apply: async (t, events) => {
      const target = events[6] as HistoryEvent;
      const other = events.find((e) => e.participant_address !== target.participant_address) as HistoryEvent;
      await t.run(`UPDATE history_events SET participant_address = ${t.p(1)} WHERE sequence = ${t.p(2)}`, [
        other.participant_address,
        target.sequence,
      ]);
      return { participant: other.participant_address, sequence: target.sequence };
    },
  },
  keyColumnEdited("episode_id", "episode:forged"),
  keyColumnEdited("action_instance_id", "action-instance:forged"),
  {
    name: "moves a participant's last event to a participant with no chain",
    kind: ChainBreak.edited,
    says: /^its participant was changed: it was sealed in participant .+'s chain, as that participant's next event$/,
    apply: async (t, events) => {
      const target = events[events.length - 1] as HistoryEvent;
      await moveEvent(t, target.sequence, "participant:green/nobody");
      return { participant: "participant:green/nobody", sequence: target.sequence };
    },
  },
];

describe("raes verify over a SQLite store", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-tamper-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const filled = async () => {
    n += 1;
    const file = join(dir, `store-${n}.db`);
    const store = await openControlPlaneStore(`sqlite:${file}`);
    const events = await fill(store);
    await store.close();
    return { file, url: `sqlite:${file}`, events };
  };

  it("verifies an untouched store: every event and participant counted", async () => {
    const { url } = await filled();
    const store = await openControlPlaneStore(url);
    const report = await verifyStore(store, 4);
    await store.close();
    assert.equal(report.ok, true, JSON.stringify(report.failure));
    assert.equal(report.events, 15);
    assert.equal(report.participants, 2);
  });

  for (const tampering of TAMPERINGS) {
    it(`fails when someone ${tampering.name}, naming that event`, async () => {
      const { file, url, events } = await filled();
      const db = new Database(file);
      const expected = await tampering.apply(
        {
          run: async (sql, values = []) => {
            db.prepare(sql).run(...(values as never[]));
          },
          p: () => "?",
        },
        events,
      );
      db.close();
      const store = await openControlPlaneStore(url);
      const report = await verifyStore(store, 4);
      await store.close();
      assert.equal(report.ok, false);
      assert.deepEqual(
        [report.failure?.kind, report.failure?.participant_address, report.failure?.sequence],
        [tampering.kind, expected.participant, expected.sequence],
        report.failure?.detail,
      );
      if (tampering.says) assert.match(report.failure?.detail ?? "", tampering.says);
    });
  }
});

describe("raes verify over a store whose chains name no scenario or manifest", () => {
  it("fails when someone deletes a participant's chain head and then its last event", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-tamper-unanchored-"));
    try {
      const file = join(dir, "store.db");
      const store = await openControlPlaneStore(`sqlite:${file}`);
      const events = await fill(store, { scenario_digest: null, manifest_digest: null });
      await store.close();
      const [last, before] = [events[events.length - 1], events[events.length - 2]] as HistoryEvent[];
      assert.equal(last?.participant_address, before?.participant_address);
      const db = new Database(file);
      db.prepare("DELETE FROM history_chains WHERE participant_address = ?").run(last?.participant_address);
      db.prepare("DELETE FROM history_events WHERE sequence = ?").run(last?.sequence);
      db.close();
      const reopened = await openControlPlaneStore(`sqlite:${file}`);
      const report = await verifyStore(reopened, 4);
      await reopened.close();
      assert.equal(report.ok, false);
      assert.deepEqual(
        [report.failure?.kind, report.failure?.participant_address, report.failure?.sequence],
        [ChainBreak.truncated, before?.participant_address, before?.sequence],
        report.failure?.detail,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("raes verify over a PostgreSQL store", async () => {
  if (!(await postgresAvailable("evidence tampering tests"))) return;
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });
  const filled = async () => {
    const { schema, url, drop } = freshSchema("raes_tamper");
    drops.push(drop);
    const store = await openControlPlaneStore(url);
    const events = await fill(store);
    await store.close();
    return { schema, url, events };
  };

  it("verifies an untouched store: every event and participant counted", async () => {
    const { url, events } = await filled();
    const store = await openControlPlaneStore(url);
    const report = await verifyStore(store, 4);
    const memory = await openControlPlaneStore("memory:");
    const same = await fill(memory);
    await store.close();
    assert.equal(report.ok, true, JSON.stringify(report.failure));
    assert.equal(report.events, 15);
    assert.deepEqual(
      events.map((e) => e.chain_digest),
      same.map((e) => e.chain_digest),
      "PostgreSQL computes in SQL the digests the memory store computes",
    );
  });

  for (const tampering of TAMPERINGS) {
    it(`fails when someone ${tampering.name}, naming that event`, async () => {
      const { schema, url, events } = await filled();
      const expected = await tampering.apply(
        {
          run: async (sql, values = []) => {
            await adminQuery(`SET search_path TO ${schema}`);
            await adminQuery(
              sql
                .replaceAll("history_events", `${schema}.history_events`)
                .replaceAll("history_chains", `${schema}.history_chains`),
              values,
            );
          },
          p: (i) => `$${i}`,
        },
        events,
      );
      const store = await openControlPlaneStore(url);
      const report = await verifyStore(store, 4);
      await store.close();
      assert.equal(report.ok, false);
      assert.deepEqual(
        [report.failure?.kind, report.failure?.participant_address, report.failure?.sequence],
        [tampering.kind, expected.participant, expected.sequence],
        report.failure?.detail,
      );
      if (tampering.says) assert.match(report.failure?.detail ?? "", tampering.says);
    });
  }
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import type { HistoryEventDraft } from "../../src/history/index.js";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { SCHEMA_VERSION } from "../../src/store/sqlite/schema.js";
import { ROOT } from "../helpers/example.js";
import { closeCommit, invocation, scheduler, unchained, unchainedLine } from "./records.js";
import { sqliteAtStep } from "./sqlite-at-step.js";

/** The golden history without its chain digests: these tests commit its drafts under no anchor. */
const LINES = readFileSync(join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map(unchainedLine);
const DRAFTS = LINES.map((line) => {
  const { sequence: _sequence, ...draft } = JSON.parse(line) as HistoryEventDraft & { sequence: number };
  return draft;
});
const HALF = Math.ceil(DRAFTS.length / 2);

function tempDb(): { file: string; url: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "raes-sqlite-history-"));
  const file = join(dir, "control-plane.db");
  return { file, url: `sqlite:${file}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Commits `drafts` as the close of a fresh invocation `id`. */
async function commit(
  store: SqliteControlPlaneStore,
  id: string,
  ordinal: number,
  drafts: HistoryEventDraft[],
) {
  const inv = invocation({ id, ordinal });
  await store.openInvocation(inv, scheduler({ attempts: ordinal + 1, nextOrdinal: ordinal + 1 }));
  await store.commitInvocation({ ...closeCommit(inv), events: drafts });
}

/** The stored bodies, in commit order. */
function bodies(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT body FROM history_events ORDER BY sequence").all() as { body: string }[]).map(
      (r) => r.body,
    );
  } finally {
    db.close();
  }
}

/** A database as a raes-ts at schema step 10 left it, holding the first half of the golden history. */
function stepTen(file: string): void {
  const old = sqliteAtStep(file, 10, "2026-01-01");
  // As the step-10 store wrote them: the draft's JSON, keyed by its columns.
  const insert = old.prepare(
    "INSERT INTO history_events (participant_address, episode_id, action_instance_id, body) VALUES (?, ?, ?, ?)",
  );
  for (const d of DRAFTS.slice(0, HALF)) {
    insert.run(d.participant_address, d.episode_id, d.action_instance_id, JSON.stringify(d));
  }
  old.close();
}

const exported = async (store: SqliteControlPlaneStore) =>
  unchained(await store.listEvents({})).map((e) => JSON.stringify(e));

describe("sqlite history bodies, packed from schema step 11", () => {
  it("stores each body packed in under half its JSON's bytes and reads it back as written, read-only too", async () => {
    const { file, url, remove } = tempDb();
    try {
      const store = SqliteControlPlaneStore.open(url, file);
      await commit(store, "inv-a", 0, DRAFTS);
      await store.close();
      const stored = bodies(file);
      assert.ok(stored.every((b) => b.startsWith("[1,")));
      const packed = stored.reduce((n, b) => n + Buffer.byteLength(b), 0);
      const plain = DRAFTS.reduce((n, d) => n + Buffer.byteLength(JSON.stringify(d)), 0);
      assert.ok(packed < plain / 2, `${packed} bytes packed of ${plain}`);
      const reader = SqliteControlPlaneStore.open(url, file, { readOnly: true });
      assert.deepEqual(await exported(reader), LINES);
      await reader.close();
    } finally {
      remove();
    }
  });

  it("upgrades a database left at version 10: its JSON bodies read as they were, new ones packed after them", async () => {
    const { file, url, remove } = tempDb();
    try {
      stepTen(file);
      const store = SqliteControlPlaneStore.open(url, file);
      assert.deepEqual(await exported(store), LINES.slice(0, HALF));
      await commit(store, "inv-b", 1, DRAFTS.slice(HALF));
      assert.deepEqual(await exported(store), LINES);
      await store.close();
      const stored = bodies(file);
      assert.ok(stored.slice(0, HALF).every((b) => b.startsWith("{")));
      assert.ok(stored.slice(HALF).every((b) => b.startsWith("[1,")));
      const db = new Database(file, { readonly: true });
      assert.equal(
        (db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number }).v,
        SCHEMA_VERSION,
      );
      db.close();
    } finally {
      remove();
    }
  });

  it("reads a database left at version 10 read-only (a write-protected copy), with no chain digests", async () => {
    const { file, url, remove } = tempDb();
    try {
      stepTen(file);
      const reader = SqliteControlPlaneStore.open(url, file, { readOnly: true });
      assert.deepEqual(await exported(reader), LINES.slice(0, HALF));
      await reader.close();
      const db = new Database(file, { readonly: true });
      const { v } = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number };
      db.close();
      assert.equal(v, 10, "nothing migrated");
    } finally {
      remove();
    }
  });

  it("refuses a database a newer raes-ts migrated, read-only or not, naming the upgrade", () => {
    const { file, url, remove } = tempDb();
    try {
      SqliteControlPlaneStore.open(url, file).close();
      const db = new Database(file);
      db.prepare("INSERT INTO schema_migrations VALUES (?, 'from the future', '2027-01-01')").run(
        SCHEMA_VERSION + 1,
      );
      db.close();
      for (const readOnly of [false, true]) {
        assert.throws(
          () => SqliteControlPlaneStore.open(url, file, { readOnly }),
          /newer than this raes-ts knows/,
        );
      }
    } finally {
      remove();
    }
  });

  it("keeps values with their own toJSON as JSON.stringify writes them", async () => {
    const { file, url, remove } = tempDb();
    try {
      const store = SqliteControlPlaneStore.open(url, file);
      const [first, second] = DRAFTS as [HistoryEventDraft, HistoryEventDraft];
      const drafts = [
        {
          ...first,
          action_result: { status: "succeeded", toJSON: () => ({ status: "as its toJSON says" }) },
        },
        { ...second, observations: Object.assign(["hidden"], { toJSON: () => ["shown"] }) },
      ] as unknown as HistoryEventDraft[];
      await commit(store, "inv-j", 0, drafts);
      assert.deepEqual(
        await exported(store),
        drafts.map((d, i) => JSON.stringify({ ...d, sequence: i + 1 })),
      );
      await store.close();
    } finally {
      remove();
    }
  });

  it("keeps an event whose row keys hold a lone surrogate (altered in a TEXT column) as written", async () => {
    const { file, url, remove } = tempDb();
    try {
      const store = SqliteControlPlaneStore.open(url, file);
      const [first] = DRAFTS as [HistoryEventDraft];
      const odd = `${first.action_instance_id}\ud800`;
      const drafts = [{ ...first, action_instance_id: odd, event_id: `${odd}#1`, observation_point: odd }];
      await commit(store, "inv-s", 0, drafts as HistoryEventDraft[]);
      assert.deepEqual(await exported(store), [JSON.stringify({ ...drafts[0], sequence: 1 })]);
      await store.close();
    } finally {
      remove();
    }
  });
});

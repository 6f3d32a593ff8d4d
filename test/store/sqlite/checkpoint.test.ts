import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { HistoryEventDraft } from "../../../src/history/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { closeCommit, invocation, scheduler, triple } from "../records.js";

const dir = mkdtempSync(join(tmpdir(), "raes-checkpoint-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** How many events the database file holds by itself, without its WAL (a copy of the file alone). */
function eventsInFile(file: string, copy: string): number {
  copyFileSync(file, copy);
  const db = new Database(copy, { readonly: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'history_events'").get();
    if (table === undefined) return 0;
    return (db.prepare("SELECT count(*) AS n FROM history_events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("sqlite checkpoints", () => {
  it("a transaction of several closes leaves its checkpoint until after the commit; close checkpoints it", async () => {
    const file = join(dir, "recovery.db");
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    // Far more than the 1000 WAL pages at which SQLite would checkpoint within the commit.
    const bulk = "x".repeat(1 << 20);
    const invocations = [1, 2].map((n) => invocation({ id: `inv-${n}`, ordinal: n }));
    try {
      for (const inv of invocations) await store.openInvocation(inv, scheduler());
      const before = eventsInFile(file, join(dir, "before.db"));
      await store.commitInvocations(
        invocations.map((inv) => ({
          ...closeCommit(inv),
          events: triple(inv).map((draft) => ({ ...draft, note: bulk }) as HistoryEventDraft),
        })),
      );
      // Read at once after the commit returned: the deferred checkpoint cannot have run in between.
      assert.equal(eventsInFile(file, join(dir, "after-commit.db")), before);
      assert.equal((await store.listEvents()).length, 6, "the WAL holds the committed events");
    } finally {
      await store.close();
    }
    assert.equal(eventsInFile(file, join(dir, "after-close.db")), 6);
  });
});

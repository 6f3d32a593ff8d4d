import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { runStoreContract } from "./contract.js";
import { P1 } from "./records.js";

function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "raes-sqlite-"));
  return {
    file: join(dir, "nested", "control-plane.db"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

runStoreContract("sqlite", async () => {
  const { file, remove } = tempFile();
  const url = `sqlite:${file}`;
  const opened: SqliteControlPlaneStore[] = [];
  const open = async () => {
    const store = SqliteControlPlaneStore.open(url, file);
    opened.push(store);
    return store;
  };
  const store = await open();
  return {
    store,
    reopen: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      remove();
    },
  };
});

describe("sqlite store specifics", () => {
  it("runs in WAL mode with full fsync, foreign keys and one recorded migration per version", async () => {
    const { file, remove } = tempFile();
    try {
      const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
      await store.close();
      await SqliteControlPlaneStore.open(`sqlite:${file}`, file).close();
      const db = new Database(file);
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
      assert.deepEqual(versions, [{ version: 1 }]);
      db.close();
    } finally {
      remove();
    }
  });

  it("follows the injected clock for lease expiry", async () => {
    const { file, remove } = tempFile();
    let now = 1_000;
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file, { now: () => now });
    try {
      const lease = await store.acquireLease(P1, "host-a", 500);
      assert.deepEqual(lease, { participantAddress: P1, ownerId: "host-a", token: 1, expiresAt: 1_500 });
      now = 1_499;
      assert.equal(await store.acquireLease(P1, "host-b", 500), undefined);
      now = 1_500;
      assert.deepEqual(await store.acquireLease(P1, "host-b", 500), {
        participantAddress: P1,
        ownerId: "host-b",
        token: 2,
        expiresAt: 2_000,
      });
    } finally {
      await store.close();
      remove();
    }
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { StoreUnavailableError } from "../../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";

const dir = mkdtempSync(join(tmpdir(), "raes-wal-switch-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const DRIVER = createRequire(import.meta.url).resolve("better-sqlite3");

/**
 * Another connection (in a worker thread, so this thread can block in a synchronous open) holds a
 * rollback-mode write transaction on `file` for `holdMs`: what a second process sees while the first
 * one to open a new file is switching it.
 */
async function holdWriteLock(file: string, holdMs: number): Promise<Worker> {
  const worker = new Worker(
    `const Database = require(${JSON.stringify(DRIVER)});
     const { parentPort, workerData } = require("node:worker_threads");
     const db = new Database(workerData.file);
     db.exec("BEGIN IMMEDIATE");
     db.exec("CREATE TABLE IF NOT EXISTS other (x)");
     parentPort.postMessage("held");
     setTimeout(() => { db.exec("COMMIT"); db.close(); }, workerData.holdMs);`,
    { eval: true, workerData: { file, holdMs } },
  );
  await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return worker;
}

function journalMode(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("journal_mode", { simple: true });
  } finally {
    db.close();
  }
}

describe("opening a SQLite store another process is switching to WAL", () => {
  it("waits for the other writer within the busy timeout, then switches the file and migrates it", async () => {
    const file = join(dir, "waits.db");
    const worker = await holdWriteLock(file, 300);
    try {
      // SQLite refuses the switch at once (no busy handler) while the other connection writes.
      const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file, { busyTimeoutMs: 10_000 });
      assert.deepEqual(await store.listEvents(), []);
      await store.close();
      assert.equal(journalMode(file), "wal");
    } finally {
      await worker.terminate();
    }
  });

  it("gives up as unavailable once the busy timeout has passed, leaving the file in rollback mode", async () => {
    const file = join(dir, "gives-up.db");
    const worker = await holdWriteLock(file, 2_000);
    try {
      assert.throws(
        () => SqliteControlPlaneStore.open(`sqlite:${file}`, file, { busyTimeoutMs: 50 }),
        (error: unknown) =>
          error instanceof StoreUnavailableError && /database is locked/.test(error.message),
      );
    } finally {
      await worker.terminate();
    }
    assert.equal(journalMode(file), "delete");
  });
});

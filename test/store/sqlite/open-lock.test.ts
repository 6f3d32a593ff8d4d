import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import Database from "better-sqlite3";
import { openControlPlaneStore } from "../../../src/store/index.js";

const dir = mkdtempSync(join(tmpdir(), "raes-sqlite-open-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// A store at this code's step is only read when opened: another process's long write (a recovery
// holds the write lock for seconds) neither holds the open off nor is held off by it.
it("opens a current store while another connection holds the write lock, and reads it", async () => {
  const file = join(dir, "store.db");
  await (await openControlPlaneStore(`sqlite:${file}`)).close();
  const writer = new Database(file);
  writer.exec("BEGIN IMMEDIATE");
  try {
    const store = await openControlPlaneStore(`sqlite:${file}`, { busyTimeoutMs: 100 });
    try {
      assert.deepEqual(await store.listOpenInvocations(), []);
    } finally {
      await store.close();
    }
  } finally {
    writer.exec("ROLLBACK");
    writer.close();
  }
});

it("still takes the write lock to migrate a store behind this code's step", async () => {
  const file = join(dir, "behind.db");
  await (await openControlPlaneStore(`sqlite:${file}`)).close();
  const setup = new Database(file);
  const last = setup.prepare("SELECT max(version) FROM schema_migrations").pluck().get() as number;
  // The last step recorded as not applied: the open must take the lock to apply it (it finds its
  // change already there, and says so, or applies it).
  setup.prepare("DELETE FROM schema_migrations WHERE version = ?").run(last);
  setup.close();
  const writer = new Database(file);
  writer.exec("BEGIN IMMEDIATE");
  try {
    await assert.rejects(openControlPlaneStore(`sqlite:${file}`, { busyTimeoutMs: 100 }), /locked/);
  } finally {
    writer.exec("ROLLBACK");
    writer.close();
  }
});

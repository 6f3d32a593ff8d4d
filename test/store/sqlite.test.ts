import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { chainDigest, chainGenesis, UNANCHORED } from "../../src/records/index.js";
import { openControlPlaneStore, StoreUnavailableError } from "../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/sqlite/schema.js";
import { reopenable, runStoreContract } from "./contract.js";
import { assertSchedulerUpgraded, P1, scheduler } from "./records.js";
import { sqliteAtStep } from "./sqlite-at-step.js";
import { assertTimesUpgraded, step4RowsSql } from "./upgrade-times.js";

function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "raes-sqlite-"));
  return {
    file: join(dir, "nested", "control-plane.db"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

runStoreContract("sqlite", async () => {
  const { file, remove } = tempFile();
  return reopenable(() => SqliteControlPlaneStore.open(`sqlite:${file}`, file), remove);
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
      assert.deepEqual(
        versions,
        MIGRATIONS.map((m) => ({ version: m.version })),
      );
      db.close();
    } finally {
      remove();
    }
  });

  it("caps its connection's page cache at 128 MiB, or at the cacheMiB given, read-only or not", async () => {
    const { file, remove } = tempFile();
    const original = Database.prototype.pragma;
    const connections: Database.Database[] = [];
    Database.prototype.pragma = function pragma(
      this: Database.Database,
      ...args: Parameters<typeof original>
    ) {
      if (!connections.includes(this)) connections.push(this);
      return original.apply(this, args);
    };
    try {
      const byDefault = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
      const capped = await openControlPlaneStore(`sqlite:${file}`, { cacheMiB: 8 });
      const reader = await openControlPlaneStore(`sqlite:${file}`, { cacheMiB: 4, readOnly: true });
      Database.prototype.pragma = original;
      const [first, second, third] = connections;
      assert.ok(first && second && third);
      assert.equal(third.pragma("cache_size", { simple: true }), -4_096, "a read-only open too");
      await reader.close();
      assert.equal(
        first.pragma("cache_size", { simple: true }),
        -131_072,
        "in KiB, as a negative cache_size is",
      );
      assert.equal(second.pragma("cache_size", { simple: true }), -8_192);
      await byDefault.close();
      await capped.close();
    } finally {
      Database.prototype.pragma = original;
      remove();
    }
  });

  it("upgrades a database left at version 1 and keeps its rows, chaining its events once and recording it", async () => {
    const { file, remove } = tempFile();
    try {
      mkdirSync(dirname(file), { recursive: true });
      const old = new Database(file);
      old.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
        ${MIGRATIONS[0]?.sql}
        INSERT INTO schema_migrations VALUES (1, 'control plane', '2025-01-01');`);
      old
        .prepare(
          "INSERT INTO history_events (participant_address, episode_id, action_instance_id, body) VALUES (?, ?, ?, ?)",
        )
        .run(
          P1,
          "episode-1",
          "inv-old",
          JSON.stringify({ participant_address: P1, episode_id: "episode-1" }),
        );
      old.close();
      const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
      const written = { participant_address: P1, episode_id: "episode-1", sequence: 1 };
      const digest = chainDigest(chainGenesis(P1, UNANCHORED), written);
      assert.deepEqual(await store.listEvents({ participantAddress: P1 }), [
        { ...written, chain_digest: digest },
      ]);
      const [head] = await store.listChainHeads();
      assert.equal(head?.head_digest, digest);
      assert.equal(head?.events, 1);
      assert.match(
        head?.backfilled_at ?? "",
        /^\d{4}-\d\d-\d\dT/,
        "the chain records the step that computed it",
      );
      await store.close();
      const db = new Database(file);
      const latest = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number };
      assert.equal(latest.v, SCHEMA_VERSION);
      db.close();
    } finally {
      remove();
    }
  });

  it("upgrades a database left at version 2 and keeps its schedulers, watermark at 0", async () => {
    const { file, remove } = tempFile();
    try {
      mkdirSync(dirname(file), { recursive: true });
      const old = sqliteAtStep(file, 2);
      const saved = scheduler({ attempts: 2, nextOrdinal: 4, cursor: 1 });
      old
        .prepare(`INSERT INTO schedulers (participant_address, policy_address, lifecycle, stop_reason,
          next_ordinal, attempts, cursor, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)`)
        .run(P1, saved.policyAddress, saved.lifecycle, 4, 2, 1, saved.updatedAt);
      old.close();
      await assertSchedulerUpgraded(SqliteControlPlaneStore.open(`sqlite:${file}`, file), saved);
    } finally {
      remove();
    }
  });

  it("upgrades a database left at version 4: record times from the rows' created_at and updated_at", async () => {
    const { file, remove } = tempFile();
    try {
      mkdirSync(dirname(file), { recursive: true });
      const old = sqliteAtStep(file, 4);
      old.exec(step4RowsSql());
      old.close();
      await assertTimesUpgraded(SqliteControlPlaneStore.open(`sqlite:${file}`, file));
    } finally {
      remove();
    }
  });

  it("refuses to open a database whose schema is newer than this code", async () => {
    const { file, remove } = tempFile();
    try {
      await SqliteControlPlaneStore.open(`sqlite:${file}`, file).close();
      const db = new Database(file);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'x')").run(
        SCHEMA_VERSION + 1,
      );
      db.close();
      assert.throws(
        () => SqliteControlPlaneStore.open(`sqlite:${file}`, file),
        (error: unknown) => error instanceof StoreUnavailableError && /newer/.test(error.message),
      );
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

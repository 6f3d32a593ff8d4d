import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import {
  chaining,
  pgFloor,
  pgRecoveryWrites,
  rowCount,
  sqliteFloor,
  sqliteRecoveryWrites,
} from "../../../bench/recovery/index.js";
import { seedPgInterrupted, seedSqliteInterrupted, timeRecovery } from "../../../bench/shared/index.js";
import { modelWithAttempts } from "../../helpers/example.js";
import { freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "../../store/pg-available.js";

const MODEL = modelWithAttempts(100);

/** Every row of a SQLite table, in rowid order. */
function wholeTable(path: string, table: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();
  } finally {
    db.close();
  }
}
const COUNT = 30;

// The floor is only a floor if it writes what recovery wrote: after it, the untouched copy must hold
// exactly the recovered store's rows, and it must have read every open invocation and action first.
describe("recovery bench floor", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-recovery-floor-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite: the copy holds the recovered rows, byte for byte, after the floor", async () => {
    const recovered = join(dir, "recovered.db");
    const copy = join(dir, "copy.db");
    await seedSqliteInterrupted(recovered, MODEL, COUNT);
    copyFileSync(recovered, copy);
    await timeRecovery(`sqlite:${recovered}`, MODEL);
    const writes = sqliteRecoveryWrites(recovered);
    assert.equal(writes.events.length, 3 * COUNT);
    const floor = sqliteFloor(copy, writes);
    assert.equal(floor.rowsRead, 2 * COUNT);
    assert.equal(floor.rowsWritten, rowCount(writes));
    assert.deepEqual(sqliteRecoveryWrites(copy), writes);
    // Not only the columns the floor copies: every row of the tables recovery writes is the same.
    for (const table of ["invocations", "tool_actions", "history_events", "schedulers", "history_chains"]) {
      assert.deepEqual(wholeTable(copy, table), wholeTable(recovered, table), table);
    }
  });

  it("chaining hashes every recovered event's whole text, its own chain digest left out", async () => {
    const path = join(dir, "chained.db");
    await seedSqliteInterrupted(path, MODEL, COUNT);
    const { history } = await timeRecovery(`sqlite:${path}`, MODEL);
    const timed = chaining(history);
    assert.equal(timed.events, 3 * COUNT);
    const texts = history.map((event) => {
      const { chain_digest, ...rest } = event as Record<string, unknown>;
      assert.match(String(chain_digest), /^sha256:[0-9a-f]{64}$/);
      return JSON.stringify(rest);
    });
    assert.equal(
      timed.characters,
      texts.reduce((sum, text) => sum + text.length, 0),
    );
    assert.ok(timed.ms > 0);
  });

  it("PostgreSQL: the copy holds the recovered rows after the floor", async (t) => {
    if (!(await postgresAvailable("the recovery bench floor"))) return t.skip("PostgreSQL unavailable");
    const recovered = freshSchema("raes_floor");
    const copy = freshSchema("raes_floor_copy");
    try {
      await seedPgInterrupted(POSTGRES_TEST_URL, recovered.schema, MODEL, COUNT);
      await seedPgInterrupted(POSTGRES_TEST_URL, copy.schema, MODEL, COUNT);
      await timeRecovery(recovered.url, MODEL);
      const writes = await pgRecoveryWrites(POSTGRES_TEST_URL, recovered.schema);
      assert.equal(writes.events.length, 3 * COUNT);
      const floor = await pgFloor(POSTGRES_TEST_URL, copy.schema, writes);
      assert.equal(floor.rowsRead, 2 * COUNT);
      assert.equal(floor.rowsWritten, rowCount(writes));
      assert.deepEqual(await pgRecoveryWrites(POSTGRES_TEST_URL, copy.schema), writes);
    } finally {
      await recovered.drop();
      await copy.drop();
    }
  });
});

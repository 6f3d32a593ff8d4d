import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { StoreConflictError, StoreSchemaDamagedError, StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { adminQuery, freshSchema, inFreshSchema, postgresAvailable } from "./pg-available.js";
import { invocation, scheduler, toolAction } from "./records.js";

/**
 * A write the driver rejects because the record is malformed (a programming error in the caller)
 * must surface as that error: only connection and I/O failures mean "the store is unavailable".
 */
async function assertBugIsBug(store: ControlPlaneStore): Promise<void> {
  const inv = invocation();
  await store.openInvocation(inv, scheduler({ attempts: 1 }));
  const malformed = { ...toolAction(inv, 1), admissionOrdinal: { not: "a number" } as unknown as number };
  await assert.rejects(store.insertToolAction(malformed), (error: unknown) => {
    assert.ok(error instanceof Error, String(error));
    assert.ok(!(error instanceof StoreUnavailableError), `reported as unavailable: ${error.message}`);
    assert.ok(!(error instanceof StoreConflictError), `reported as a conflict: ${error.message}`);
    assert.ok(!(error instanceof StoreSchemaDamagedError), `reported as damage: ${error.message}`);
    assert.doesNotMatch(error.message, /unavailable|damaged/);
    return true;
  });
  assert.deepEqual(await store.listToolActions({}), [], "nothing was written");
}

/**
 * A store damaged behind its back after it opened (by `damage`: a dropped table, a dropped column)
 * refuses a read and a write with `store.schema-damaged`, in the words `named`, and writes nothing.
 */
async function assertDamageAfterOpen(
  store: ControlPlaneStore,
  damage: () => Promise<void>,
  named: RegExp,
  readAlso = true,
): Promise<void> {
  const inv = invocation();
  await store.openInvocation(inv, scheduler({ attempts: 1 }));
  await damage();
  const damaged = (error: unknown) => {
    assert.ok(error instanceof StoreSchemaDamagedError, String(error));
    assert.equal(error.code, "store.schema-damaged");
    assert.match(error.message, /is damaged: .*; restore it from a backup, or run on a new store$/);
    assert.match(error.message, named);
    return true;
  };
  if (readAlso) await assert.rejects(store.listToolActions({}), damaged);
  await assert.rejects(store.insertToolAction(toolAction(inv, 1)), damaged);
  assert.equal((await store.getInvocation(inv.id))?.state, "running", "the invocation is as it was");
}

describe("store errors: a bug is a bug, not an unavailable store", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-store-errors-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite: a malformed record is the driver's error", async () => {
    const store = await openControlPlaneStore(`sqlite:${join(dir, "bug.db")}`);
    try {
      await assertBugIsBug(store);
    } finally {
      await store.close();
    }
  });

  it("SQLite: an unreachable file is unavailable", async () => {
    await assert.rejects(
      openControlPlaneStore(`sqlite:${join(dir, "missing", "x.db")}`, { readOnly: true }),
      StoreUnavailableError,
    );
  });

  it("PostgreSQL: a malformed record is the server's error", async (t) => {
    if (!(await postgresAvailable("store error classes on PostgreSQL"))) {
      t.skip("POSTGRES UNAVAILABLE");
      return;
    }
    const { url, drop } = freshSchema("raes_errors");
    const store = await openControlPlaneStore(url);
    try {
      await assertBugIsBug(store);
    } finally {
      await store.close();
      await drop();
    }
  });

  for (const [label, sql, named, readAlso] of [
    ["a table", "DROP TABLE tool_actions", /no such table: tool_actions/, true],
    [
      "a column",
      "ALTER TABLE tool_actions DROP COLUMN approval",
      /table tool_actions has no column named approval/,
      false,
    ],
  ] as const) {
    it(`SQLite: ${label} dropped outside the store is a damaged schema, not a bug or an outage`, async () => {
      const file = join(dir, `damaged-${readAlso}.db`);
      const store = await openControlPlaneStore(`sqlite:${file}`);
      try {
        await assertDamageAfterOpen(
          store,
          async () => {
            const db = new Database(file);
            db.exec(sql);
            db.close();
          },
          named,
          readAlso,
        );
      } finally {
        await store.close();
      }
    });
  }

  for (const [label, sql, named, readAlso] of [
    ["a table", "DROP TABLE S.tool_actions CASCADE", /relation "tool_actions" does not exist/, true],
    [
      "a column",
      "ALTER TABLE S.tool_actions DROP COLUMN approval",
      /column "approval" .*does not exist/,
      false,
    ],
  ] as const) {
    it(`PostgreSQL: ${label} dropped outside the store is a damaged schema, not a bug or an outage`, async (t) => {
      if (!(await postgresAvailable("store error classes on PostgreSQL"))) {
        t.skip("POSTGRES UNAVAILABLE");
        return;
      }
      const { schema, url, drop } = freshSchema("raes_damaged");
      const store = await openControlPlaneStore(url);
      try {
        await assertDamageAfterOpen(
          store,
          async () => {
            await adminQuery(sql.replace("S.", `${schema}.`));
          },
          named,
          readAlso,
        );
      } finally {
        await store.close();
        await drop();
      }
    });
  }

  it("PostgreSQL: a role without the store's privileges is unavailable, as a SQLite file it may not write", (t) =>
    inFreshSchema(t, "store error classes on PostgreSQL", "raes_privileges", async (url) => {
      const role = `raes_noaccess_${process.pid}`;
      await (await openControlPlaneStore(url)).close();
      await adminQuery(`CREATE ROLE ${role} LOGIN`);
      try {
        const denied = new URL(url);
        denied.username = role;
        for (const options of [{}, { readOnly: true }])
          await assert.rejects(openControlPlaneStore(denied.href, options), (error: unknown) => {
            assert.ok(error instanceof StoreUnavailableError, String(error));
            assert.match(error.message, /is unavailable: permission denied for (schema|table)/);
            return true;
          });
      } finally {
        await adminQuery(`DROP ROLE ${role}`);
      }
    }));

  it("PostgreSQL: an unknown setting in the URL's options is not damage", (t) =>
    inFreshSchema(t, "store error classes on PostgreSQL", "raes_setting", async (url) => {
      const mistyped = new URL(url);
      mistyped.searchParams.set("options", "-c nosuch_param=1");
      await assert.rejects(openControlPlaneStore(mistyped.href), (error: unknown) => {
        assert.ok(!(error instanceof StoreSchemaDamagedError), `reported as damage: ${String(error)}`);
        assert.match(String(error), /nosuch_param/);
        return true;
      });
    }));

  it("PostgreSQL: a refused connection is unavailable", async () => {
    await assert.rejects(
      openControlPlaneStore("postgres://nobody@127.0.0.1:1/none", { connectTimeoutMs: 500 }),
      StoreUnavailableError,
    );
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { StoreConflictError, StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { freshSchema, postgresAvailable } from "./pg-available.js";
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
    assert.doesNotMatch(error.message, /unavailable/);
    return true;
  });
  assert.deepEqual(await store.listToolActions({}), [], "nothing was written");
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

  it("PostgreSQL: a refused connection is unavailable", async () => {
    await assert.rejects(
      openControlPlaneStore("postgres://nobody@127.0.0.1:1/none", { connectTimeoutMs: 500 }),
      StoreUnavailableError,
    );
  });
});

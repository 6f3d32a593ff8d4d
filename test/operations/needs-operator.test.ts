import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import Database from "better-sqlite3";
import { listOperatorWaits, OperatorNeed } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { invocation, scheduler, toolAction } from "../store/records.js";

const dir = mkdtempSync(join(tmpdir(), "raes-needs-operator-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// More resolved indeterminate actions than a listing ever read at once before (100 000): the one
// older action still waiting must be listed, as `raes resume` refuses on it.
const RESOLVED = 100_001;

it("lists an unresolved indeterminate action older than any number of resolved ones", async () => {
  const path = join(dir, "waits.db");
  const store = await openControlPlaneStore(`sqlite:${path}`);
  const inv = invocation({ id: "inv", state: "running" });
  await store.openInvocation(inv, scheduler());
  const oldest = toolAction(inv, 0, {
    phase: "settled",
    settlement: "indeterminate",
    createdAt: "2025-01-01T00:00:00.000000Z",
  });
  await store.insertToolAction(oldest);
  await store.close();
  // Copies of it, each newer and resolved, written straight into the file (a long run's leftovers).
  const db = new Database(path);
  const columns = (db.prepare("PRAGMA table_info(tool_actions)").all() as { name: string }[]).map(
    (c) => c.name,
  );
  const changed: Record<string, string> = {
    id: "'copy-' || n",
    tool_call_id: "'call-' || n",
    admission_ordinal: "n",
    created_at: "'2025-06-01T00:00:00.' || printf('%06d', n % 1000000) || 'Z'",
    resolution: `'{"effect":"absent","resolvedBy":"operator","resolvedAt":"2025-06-02T00:00:00.000000Z","reason":"checked"}'`,
  };
  db.exec(`WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ${RESOLVED})
    INSERT INTO tool_actions (${columns.join(", ")})
    SELECT ${columns.map((c) => changed[c] ?? c).join(", ")} FROM k, tool_actions WHERE tool_actions.id = '${oldest.id}'`);
  db.close();
  const reopened = await openControlPlaneStore(`sqlite:${path}`);
  try {
    const waits = await listOperatorWaits(reopened, { limit: 50 });
    assert.deepEqual(
      waits.map((w) => [w.need, w.entry.id]),
      [[OperatorNeed.resolution, oldest.id]],
    );
  } finally {
    await reopened.close();
  }
});

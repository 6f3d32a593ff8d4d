/**
 * The raw floors of the store bench: the rows one admit→dispatch→complete writes, written by hand
 * with the same driver, schema and durability as the store, one transaction per step.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { openControlPlaneStore } from "../src/store/index.js";
import { toolActionValues } from "../src/store/postgres/rows.js";
import { invocationRow, toolActionRow } from "../src/store/sqlite/rows.js";
import type { ToolActionRecord } from "../src/store/types.js";
import type { ExampleRecords } from "./store-records.js";

/** A floor: runs `cycles` admit→dispatch→complete row sequences and returns the elapsed milliseconds. */
export interface Floor {
  run(cycles: number): Promise<number>;
  close(): Promise<void>;
}

/** The k-th tool action of the floor's one invocation, as the port would build it. */
function claim(base: ToolActionRecord, k: number): ToolActionRecord {
  const request = { ...base.request, toolCallId: `call-${k}` };
  const at = new Date().toISOString();
  return {
    ...base,
    id: `${base.invocationId}:tool=${k}`,
    toolCallId: request.toolCallId,
    admissionOrdinal: k,
    request,
    createdAt: at,
    updatedAt: at,
  };
}

/** SQLite floor: WAL, synchronous=FULL (NORMAL for the settlement), foreign keys on, `BEGIN IMMEDIATE` per step, as the store does. */
export async function sqliteFloor(path: string, records: ExampleRecords): Promise<Floor> {
  await (await openControlPlaneStore(`sqlite:${path}`)).close();
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  const invocation = records.invocation(0);
  db.prepare(insertSql("invocations", Object.keys(invocationRow(invocation)))).run(invocationRow(invocation));
  const base = records.toolAction(invocation, "admitted");
  const insert = db.prepare(insertSql("tool_actions", Object.keys(toolActionRow(base))));
  const dispatch = db.prepare("UPDATE tool_actions SET phase = 'dispatched', updated_at = ? WHERE id = ?");
  const complete = db.prepare(
    "UPDATE tool_actions SET phase = 'settled', settlement = 'succeeded', updated_at = ? WHERE id = ?",
  );
  const inTransaction = (work: () => unknown) => db.transaction(work).immediate();
  const syncNormal = db.prepare("PRAGMA synchronous = NORMAL");
  const syncFull = db.prepare("PRAGMA synchronous = FULL");
  let next = 1;
  return {
    run: async (cycles) => {
      const start = performance.now();
      for (let i = 0; i < cycles; i += 1) {
        const action = claim(base, next++);
        inTransaction(() => insert.run(toolActionRow(action)));
        inTransaction(() => dispatch.run(new Date().toISOString(), action.id));
        // As the store: a settlement commits with synchronous=NORMAL (no fsync), then FULL again.
        syncNormal.run();
        inTransaction(() => complete.run(new Date().toISOString(), action.id));
        syncFull.run();
      }
      return performance.now() - start;
    },
    close: async () => {
      db.close();
    },
  };
}

/** PostgreSQL floor: one named, prepared statement per step on one connection, each its own implicit transaction. */
export async function pgFloor(
  connectionString: string,
  schema: string,
  records: ExampleRecords,
): Promise<Floor> {
  await (
    await openControlPlaneStore(
      `${connectionString}${connectionString.includes("?") ? "&" : "?"}schema=${schema}`,
    )
  ).close();
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  const invocation = records.invocation(0);
  const invocationColumns = Object.keys(invocationRow(invocation));
  await client.query(
    `INSERT INTO invocations (${invocationColumns.join(", ")}) VALUES (${invocationColumns.map((_, i) => `$${i + 1}`).join(", ")})`,
    Object.values(invocationRow(invocation)),
  );
  const base = records.toolAction(invocation, "admitted");
  const columns = Object.keys(toolActionRow(base));
  const insert = `INSERT INTO tool_actions (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
  let next = 1;
  return {
    run: async (cycles) => {
      const start = performance.now();
      for (let i = 0; i < cycles; i += 1) {
        const action = claim(base, next++);
        await client.query({ name: "floor_insert", text: insert, values: toolActionValues(action) });
        await client.query({
          name: "floor_dispatch",
          text: "UPDATE tool_actions SET phase = 'dispatched', updated_at = $2 WHERE id = $1",
          values: [action.id, new Date().toISOString()],
        });
        await client.query({
          name: "floor_complete",
          text: "UPDATE tool_actions SET phase = 'settled', settlement = 'succeeded', updated_at = $2 WHERE id = $1",
          values: [action.id, new Date().toISOString()],
        });
      }
      return performance.now() - start;
    },
    close: () => client.end(),
  };
}

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
}

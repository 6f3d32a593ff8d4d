/**
 * The raw floors of the store bench: the rows one admit→dispatch→complete writes, written by hand
 * with the same driver, schema and durability as the store, one transaction per step. Between its
 * timed blocks a floor also opens and closes an invocation holding the block's tool actions through
 * the store itself, as the port's step does around its timed cycles: the close's ~150 history events
 * land in the same file or database, so both sides' timed commits share the same WAL and checkpoint
 * load (without them, the port's blocks paid for checkpointing history the floor never wrote).
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { RuntimeModel } from "../../src/index.js";
import { closeEvents, policyFrames } from "../../src/runtime/invocation/index.js";
import {
  type ControlPlaneStore,
  type InvocationRecord,
  openControlPlaneStore,
  type ToolActionRecord,
} from "../../src/store/index.js";
import { toolActionValues } from "../../src/store/postgres/rows.js";
import { TOOL_ACTION_COLUMNS } from "../../src/store/sql/index.js";
import { toolActionRow } from "../../src/store/sqlite/rows.js";
import { EXAMPLE } from "../../test/helpers/example.js";
import type { ExampleRecords } from "../shared/index.js";

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

/** A block's settled tool action: the claim with the times its dispatch and settlement wrote. */
interface Settled {
  readonly action: ToolActionRecord;
  readonly dispatchedAt: string;
  readonly settledAt: string;
}

/** The untimed part of a floor block, through the store: the invocation's open before, its close after. */
interface Steps {
  open(): Promise<InvocationRecord>;
  close(invocation: InvocationRecord, settled: readonly Settled[]): Promise<void>;
  dispose(): Promise<void>;
}

/** Opens the store at `url` for a floor's untimed invocation opens and closes (unfenced, as a lone owner). */
async function storeSteps(url: string, model: RuntimeModel, records: ExampleRecords): Promise<Steps> {
  const store: ControlPlaneStore = await openControlPlaneStore(url);
  const frameOf = policyFrames(model, {});
  let ordinal = 0;
  return {
    open: async () => {
      const invocation = records.invocation(ordinal);
      ordinal += 1;
      await store.openInvocation(invocation, records.scheduler(ordinal), undefined);
      return invocation;
    },
    close: async (invocation, settled) => {
      const at = new Date().toISOString();
      const closed: InvocationRecord = { ...invocation, state: "succeeded", endedAt: at, updatedAt: at };
      const toolActions = settled.map(({ action, dispatchedAt, settledAt }) => ({
        ...action,
        phase: "settled" as const,
        settlement: "succeeded" as const,
        dispatchedAt,
        settledAt,
        updatedAt: settledAt,
      }));
      // The outer result the bench harness answers (noopResult of bench/shared/harness.ts).
      const outer = { status: "succeeded", postStateDigest: "bench-noop" };
      await store.commitInvocation(
        {
          invocation: closed,
          toolActions,
          events: closeEvents(frameOf(EXAMPLE.policy), closed, toolActions, outer),
          scheduler: records.scheduler(ordinal),
        },
        undefined,
      );
    },
    dispose: () => store.close(),
  };
}

/** SQLite floor: WAL, synchronous=FULL (NORMAL for the settlement), foreign keys on, `BEGIN IMMEDIATE` per step, as the store does. */
export async function sqliteFloor(
  path: string,
  model: RuntimeModel,
  records: ExampleRecords,
): Promise<Floor> {
  const steps = await storeSteps(`sqlite:${path}`, model, records);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  const template = records.toolAction(records.invocation(0), "admitted");
  const insert = db.prepare(insertSql("tool_actions", Object.keys(toolActionRow(template))));
  const dispatch = db.prepare(
    "UPDATE tool_actions SET phase = 'dispatched', dispatched_at = @at, updated_at = @at WHERE id = @id",
  );
  const complete = db.prepare(
    "UPDATE tool_actions SET phase = 'settled', settlement = 'succeeded', settled_at = @at, updated_at = @at WHERE id = @id",
  );
  const inTransaction = (work: () => unknown) => db.transaction(work).immediate();
  const syncNormal = db.prepare("PRAGMA synchronous = NORMAL");
  const syncFull = db.prepare("PRAGMA synchronous = FULL");
  let next = 1;
  return {
    run: async (cycles) => {
      const invocation = await steps.open();
      const base = records.toolAction(invocation, "admitted");
      const settled: Settled[] = [];
      const start = performance.now();
      for (let i = 0; i < cycles; i += 1) {
        const action = claim(base, next++);
        inTransaction(() => insert.run(toolActionRow(action)));
        const dispatchedAt = new Date().toISOString();
        inTransaction(() => dispatch.run({ at: dispatchedAt, id: action.id }));
        // As the store: a settlement commits with synchronous=NORMAL (no fsync), then FULL again.
        syncNormal.run();
        const settledAt = new Date().toISOString();
        inTransaction(() => complete.run({ at: settledAt, id: action.id }));
        syncFull.run();
        settled.push({ action, dispatchedAt, settledAt });
      }
      const ms = performance.now() - start;
      await steps.close(invocation, settled);
      return ms;
    },
    close: async () => {
      db.close();
      await steps.dispose();
    },
  };
}

/** PostgreSQL floor: one named, prepared statement per step on one connection, each its own implicit transaction. */
export async function pgFloor(
  connectionString: string,
  schema: string,
  model: RuntimeModel,
  records: ExampleRecords,
): Promise<Floor> {
  const url = `${connectionString}${connectionString.includes("?") ? "&" : "?"}schema=${schema}`;
  const steps = await storeSteps(url, model, records);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  // In toolActionValues' order: the columns as the store lists them, not a row object's key order.
  const columns = TOOL_ACTION_COLUMNS.map(([name]) => name);
  const insert = `INSERT INTO tool_actions (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
  let next = 1;
  return {
    run: async (cycles) => {
      const invocation = await steps.open();
      const base = records.toolAction(invocation, "admitted");
      const settled: Settled[] = [];
      const start = performance.now();
      for (let i = 0; i < cycles; i += 1) {
        const action = claim(base, next++);
        await client.query({ name: "floor_insert", text: insert, values: toolActionValues(action) });
        const dispatchedAt = new Date().toISOString();
        await client.query({
          name: "floor_dispatch",
          text: "UPDATE tool_actions SET phase = 'dispatched', dispatched_at = $2, updated_at = $2 WHERE id = $1",
          values: [action.id, dispatchedAt],
        });
        const settledAt = new Date().toISOString();
        await client.query({
          name: "floor_complete",
          text: "UPDATE tool_actions SET phase = 'settled', settlement = 'succeeded', settled_at = $2, updated_at = $2 WHERE id = $1",
          values: [action.id, settledAt],
        });
        settled.push({ action, dispatchedAt, settledAt });
      }
      const ms = performance.now() - start;
      await steps.close(invocation, settled);
      return ms;
    },
    close: async () => {
      await client.end();
      await steps.dispose();
    },
  };
}

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
}

/**
 * Recovery bench: a store holding `count` interrupted invocations of the example participant, each
 * with one tool action (a third admitted, a third dispatched, a third with an outcome recorded),
 * then `RuntimeManager.open` timed while it recovers them.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { RuntimeManager, type RuntimeModel } from "../../src/index.js";
import {
  type InvocationRecord,
  openControlPlaneStore,
  type ToolActionRecord,
} from "../../src/store/index.js";
import {
  INVOCATION_COLUMNS,
  invocationValues,
  toolActionRow as pgToolActionRow,
  SCHEDULER_COLUMNS,
  schedulerValues,
  TOOL_ACTION_COLUMNS,
} from "../../src/store/postgres/rows.js";
import { invocationRow, schedulerRow, toolActionRow } from "../../src/store/sqlite/rows.js";
import { EXAMPLE } from "../../test/helpers/example.js";
import { manifestWithToolLimit, ToolCallRuntime } from "./harness.js";
import { exampleRecords } from "./records.js";

const PHASES = ["admitted", "dispatched", "settled"] as const;

/** The interrupted invocations and their tool actions, as open runs would have left them. */
function interrupted(model: RuntimeModel, count: number) {
  const records = exampleRecords(model);
  const invocations: InvocationRecord[] = [];
  const actions: ToolActionRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    const invocation = records.invocation(i);
    invocations.push(invocation);
    actions.push(records.toolAction(invocation, PHASES[i % PHASES.length] ?? "admitted"));
  }
  return { invocations, actions, scheduler: records.scheduler(count) };
}

/** Writes the interrupted state into a SQLite store file, in one transaction, with the store's row mapping. */
export async function seedSqliteInterrupted(path: string, model: RuntimeModel, count: number): Promise<void> {
  await (await openControlPlaneStore(`sqlite:${path}`)).close();
  const { invocations, actions, scheduler } = interrupted(model, count);
  const db = new Database(path);
  try {
    const insert = (table: string, row: Record<string, unknown>) =>
      db
        .prepare(
          `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
            .map((c) => `@${c}`)
            .join(", ")})`,
        )
        .run(row);
    db.transaction(() => {
      insert("schedulers", { ...schedulerRow(scheduler) });
      for (const invocation of invocations) insert("invocations", { ...invocationRow(invocation) });
      for (const action of actions) insert("tool_actions", { ...toolActionRow(action) });
    })();
  } finally {
    db.close();
  }
}

/** Writes the interrupted state into a PostgreSQL store schema, in one transaction, with the store's row mapping. */
export async function seedPgInterrupted(
  connectionString: string,
  schema: string,
  model: RuntimeModel,
  count: number,
): Promise<void> {
  await (
    await openControlPlaneStore(
      `${connectionString}${connectionString.includes("?") ? "&" : "?"}schema=${schema}`,
    )
  ).close();
  const { invocations, actions, scheduler } = interrupted(model, count);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query("BEGIN");
    const named = (columns: readonly (readonly [string, string])[], values: unknown[]) =>
      Object.fromEntries(columns.map(([c], k) => [c, values[k]]));
    await bulk(client, "schedulers", SCHEDULER_COLUMNS, [
      named(SCHEDULER_COLUMNS, schedulerValues(scheduler)),
    ]);
    await bulk(
      client,
      "invocations",
      INVOCATION_COLUMNS,
      invocations.map((i) => named(INVOCATION_COLUMNS, invocationValues(i))),
    );
    await bulk(client, "tool_actions", TOOL_ACTION_COLUMNS, actions.map(pgToolActionRow));
    await client.query("COMMIT");
    await client.query("ANALYZE");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Inserts rows in batches through json_populate_recordset, so ordering columns keep insertion order. */
async function bulk(
  client: pg.Client,
  table: string,
  columns: readonly (readonly [string, string])[],
  rows: readonly object[],
): Promise<void> {
  const list = columns.map(([c]) => c).join(", ");
  for (let i = 0; i < rows.length; i += 2_000) {
    await client.query(
      `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)`,
      [JSON.stringify(rows.slice(i, i + 2_000))],
    );
  }
}

/** What recovery did, as read back from the store. */
export interface RecoveryResult {
  readonly openMs: number;
  readonly settlements: Readonly<Record<string, number>>;
  readonly stillOpen: number;
  readonly events: number;
  /** The history after the recovery, as `raes history --json` prints it. */
  readonly history: readonly object[];
  readonly lifecycle: string;
}

/** Times `RuntimeManager.open` on the store URL (it recovers every interrupted invocation), then checks the result. */
export async function timeRecovery(url: string, model: RuntimeModel): Promise<RecoveryResult> {
  const start = performance.now();
  const manager = await RuntimeManager.open({
    model,
    manifest: manifestWithToolLimit(16),
    runtime: new ToolCallRuntime(1),
    store: url,
  });
  const openMs = performance.now() - start;
  try {
    const settlements: Record<string, number> = {};
    for (const action of await manager.store.listToolActions({ participantAddress: EXAMPLE.participant })) {
      const key = action.settlement ?? action.phase;
      settlements[key] = (settlements[key] ?? 0) + 1;
    }
    const history = await manager.history();
    return {
      openMs,
      settlements,
      stillOpen: (await manager.store.listOpenInvocations()).length,
      events: history.length,
      history,
      lifecycle: manager
        .schedulers()
        .map((s) => `${s.lifecycle}${s.stopReason ? ` (${s.stopReason})` : ""}`)
        .join(", "),
    };
  } finally {
    await manager.close();
  }
}

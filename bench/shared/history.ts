/**
 * Pre-fills a store with synthetic history, fast, in every table a store of that size has: one
 * invocation with one tool action is really run, and copies of what it committed (its six events,
 * its `invocations` row, its `tool_actions` row) with fresh ids are bulk-inserted in one transaction
 * straight into the store's own schema, `history_events`' secondary indexes dropped during the
 * load and rebuilt from their stored definitions.
 */
import Database from "better-sqlite3";
import pg from "pg";
import type { HistoryEventDraft } from "../../src/history/index.js";
import { RuntimeManager, type RuntimeModel } from "../../src/index.js";
import {
  type InvocationRecord,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  type ToolActionRecord,
} from "../../src/store/index.js";
import { toolActionRow as pgToolActionRow } from "../../src/store/postgres/rows.js";
import { invocationRow } from "../../src/store/sql/records.js";
import { packBody } from "../../src/store/sqlite/packed-body.js";
import { toolActionRow as sqliteToolActionRow } from "../../src/store/sqlite/rows.js";
import { EXAMPLE } from "../../test/helpers/example.js";
import { manifestWithToolLimit, PG_URL, ToolCallRuntime } from "./harness.js";

const SLOT = "@@N@@";

/** One event of the template invocation; `SLOT` marks where the synthetic ordinal goes. */
interface Template {
  readonly pos: number;
  readonly aid: string;
  readonly body: string;
}

/** What a real run of invocations with one tool action each commits, made into templates with `SLOT` in its ids. */
export interface Templates {
  readonly events: readonly Template[];
  /** Its rows of `invocations` and `tool_actions` in each store's own shape, as JSON text; `SLOT` replaced per copy. */
  readonly rows: (backend: "sqlite" | "postgres") => { table: string; json: string }[];
}

/** Runs the first step (the cadence may run more than one invocation) and makes its records into templates. */
export async function historyTemplates(model: RuntimeModel): Promise<Templates> {
  const store = new MemoryControlPlaneStore();
  const manager = await RuntimeManager.open({
    model,
    manifest: manifestWithToolLimit(16),
    runtime: new ToolCallRuntime(1),
    store,
  });
  try {
    if ((await manager.step(1)).invocations.length === 0)
      throw new Error("the template invocation did not run");
    const actions = await store.listToolActions({});
    const invocations = await Promise.all(
      [...new Set(actions.map((a) => a.invocationId))].map(
        async (id) => (await store.getInvocation(id)) as InvocationRecord,
      ),
    );
    // Longest id first, so an id that is another's prefix is not replaced inside it.
    const ids = invocations.map((i) => i.id).sort((a, b) => b.length - a.length);
    const slotted = (text: string) =>
      ids.reduce((t, id) => t.split(id).join(id.replace(/:(\d+)$/, `:h${SLOT}.$1`)), text);
    const events = await manager.history();
    return {
      events: events.map(({ sequence: _sequence, ...draft }, pos) => ({
        pos,
        aid: slotted(draft.action_instance_id),
        body: slotted(JSON.stringify(draft)),
      })),
      rows: (backend) => [
        ...invocations.map((i) => ({
          table: "invocations",
          json: slotted(JSON.stringify(invocationRow(i))),
        })),
        ...actions.map((a: ToolActionRecord) => ({
          table: "tool_actions",
          json: slotted(JSON.stringify(backend === "sqlite" ? sqliteToolActionRow(a) : pgToolActionRow(a))),
        })),
      ],
    };
  } finally {
    await manager.close();
  }
}

/** The columns of a template row, in its JSON's key order. */
const columnsOf = (json: string) => Object.keys(JSON.parse(json) as object);

const EPISODE = `${EXAMPLE.participant}-autonomous-0`;

/** Inserts ⌈count / events per group⌉ template groups into a SQLite store file; returns the number of events. */
export async function fillSqliteHistory(path: string, all: Templates, count: number): Promise<number> {
  const templates = all.events;
  const rows = all.rows("sqlite");
  await (await openControlPlaneStore(`sqlite:${path}`)).close();
  const db = new Database(path);
  try {
    // Bulk-load settings for this setup connection only: the rows are written once, straight into
    // the file, instead of through the WAL. The store's own connections put WAL and FULL back.
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("cache_size = -262144");
    const groups = Math.ceil(count / templates.length);
    const indexes = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'history_events' AND sql IS NOT NULL",
      )
      .all() as { name: string; sql: string }[];
    db.exec("CREATE TEMP TABLE bench_templates (pos INTEGER, aid TEXT, body TEXT)");
    const add = db.prepare("INSERT INTO bench_templates VALUES (@pos, @aid, @body)");
    db.transaction(() => {
      // Packed as the store packs a body (schema step 11), against the columns each copy gets.
      for (const t of templates) {
        const keys = {
          participant_address: EXAMPLE.participant,
          episode_id: EPISODE,
          action_instance_id: t.aid,
        };
        add.run({ ...t, body: packBody(JSON.parse(t.body) as HistoryEventDraft, keys) });
      }
      for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
      // CROSS JOIN keeps the series as the outer loop, so each group's events get adjacent sequences.
      db.prepare(`WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x + 1 < @groups)
        INSERT INTO history_events (participant_address, episode_id, action_instance_id, body)
        SELECT @participant, @episode, replace(t.aid, '${SLOT}', c.x), replace(t.body, '${SLOT}', c.x)
        FROM c CROSS JOIN bench_templates t`).run({
        groups,
        participant: EXAMPLE.participant,
        episode: EPISODE,
      });
      // One invocation and one tool action per group, as the six events record them.
      for (const { table, json } of rows) {
        const columns = columnsOf(json);
        db.prepare(`WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x + 1 < @groups)
          INSERT INTO ${table} (${columns.join(", ")})
          SELECT ${columns.map((col) => `json_extract(j, '$.${col}')`).join(", ")}
          FROM (SELECT replace(@json, '${SLOT}', c.x) AS j FROM c)`).run({ groups, json });
      }
      for (const index of indexes) db.exec(index.sql);
    })();
    db.pragma("journal_mode = WAL");
    return (db.prepare("SELECT count(*) AS n FROM history_events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Inserts ⌈count / events per group⌉ template groups into a PostgreSQL store schema; returns the number of events. */
export async function fillPgHistory(
  connectionString: string,
  schema: string,
  all: Templates,
  count: number,
): Promise<number> {
  const templates = all.events;
  const templateRows = all.rows("postgres");
  await (
    await openControlPlaneStore(
      `${connectionString}${connectionString.includes("?") ? "&" : "?"}schema=${schema}`,
    )
  ).close();
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const groups = Math.ceil(count / templates.length);
    const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes
       WHERE schemaname = $1 AND tablename = 'history_events' AND indexname NOT LIKE '%_pkey'`,
      [schema],
    );
    await client.query("BEGIN");
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    for (const index of indexes) await client.query(`DROP INDEX ${index.indexname}`);
    // Sequences are assigned by hand and history_head moved past them, as the store's commit does.
    await client.query(
      `INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body)
       SELECT g * $4::bigint + t.pos + 1, $1, $2, replace(t.aid, '${SLOT}', g::text), replace(t.body, '${SLOT}', g::text)::json
       FROM generate_series(0, $3::bigint - 1) AS g
       CROSS JOIN json_to_recordset($5::json) AS t(pos int, aid text, body text)`,
      [EXAMPLE.participant, EPISODE, groups, templates.length, JSON.stringify(templates)],
    );
    await client.query("UPDATE history_head SET last_sequence = $1", [groups * templates.length]);
    for (const { table, json } of templateRows) {
      const columns = columnsOf(json);
      await client.query(
        `INSERT INTO ${table} (${columns.join(", ")})
         SELECT ${columns.map((col) => `r.${col}`).join(", ")}
         FROM generate_series(0, $1::bigint - 1) AS g,
           json_populate_record(NULL::${table}, replace($2, '${SLOT}', g::text)::json) AS r`,
        [groups, json],
      );
    }
    for (const index of indexes) await client.query(index.indexdef);
    await client.query("COMMIT");
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM history_events");
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * What autovacuum and checkpoints would have done to a store that grew over time, done to a filled
 * and an empty store alike: PostgreSQL VACUUM ANALYZE of every table, then CHECKPOINT; SQLite
 * ANALYZE and a WAL checkpoint.
 */
export async function settleStore(place: { url: string; path: string; schema: string }): Promise<void> {
  await (await openControlPlaneStore(place.url)).close();
  if (place.path !== "") {
    const db = new Database(place.path);
    try {
      db.exec("ANALYZE");
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${place.schema}` });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1",
      [place.schema],
    );
    for (const { tablename } of rows) await client.query(`VACUUM ANALYZE "${tablename}"`);
    await client.query("CHECKPOINT");
  } finally {
    await client.end();
  }
}

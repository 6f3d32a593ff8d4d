/**
 * Pre-fills a store with synthetic history, fast: the six events one invocation with one tool
 * action really commits are taken as templates, and copies with fresh action instance ids are
 * bulk-inserted in one transaction straight into `history_events` (the store's own schema), with
 * the table's secondary indexes dropped during the load and rebuilt from their stored definitions.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { RuntimeManager, type RuntimeModel } from "../src/index.js";
import { openControlPlaneStore } from "../src/store/index.js";
import { EXAMPLE } from "../test/helpers/example.js";
import { manifestWithToolLimit, ToolCallRuntime } from "./store-harness.js";

const SLOT = "@@N@@";

/** One event of the template invocation; `SLOT` marks where the synthetic ordinal goes. */
interface Template {
  readonly pos: number;
  readonly aid: string;
  readonly body: string;
}

/** The events one real invocation with one tool action commits, made into templates. */
export async function historyTemplates(model: RuntimeModel): Promise<Template[]> {
  const manager = await RuntimeManager.open({
    model,
    manifest: manifestWithToolLimit(16),
    runtime: new ToolCallRuntime(1),
    store: "memory:",
  });
  try {
    const [summary] = (await manager.step(1)).invocations;
    if (!summary) throw new Error("the template invocation did not run");
    const synthetic = summary.invocationId.replace(/:\d+$/, `:h${SLOT}`);
    const events = await manager.history();
    return events.map(({ sequence: _sequence, ...draft }, pos) => ({
      pos,
      aid: draft.action_instance_id.split(summary.invocationId).join(synthetic),
      body: JSON.stringify(draft).split(summary.invocationId).join(synthetic),
    }));
  } finally {
    await manager.close();
  }
}

const EPISODE = `${EXAMPLE.participant}-autonomous-0`;

/** Inserts ⌈count / 6⌉ template groups into a SQLite store file; returns the number of events. */
export async function fillSqliteHistory(
  path: string,
  templates: readonly Template[],
  count: number,
): Promise<number> {
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
      for (const t of templates) add.run(t);
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
      for (const index of indexes) db.exec(index.sql);
    })();
    db.pragma("journal_mode = WAL");
    return (db.prepare("SELECT count(*) AS n FROM history_events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Inserts ⌈count / 6⌉ template groups into a PostgreSQL store schema; returns the number of events. */
export async function fillPgHistory(
  connectionString: string,
  schema: string,
  templates: readonly Template[],
  count: number,
): Promise<number> {
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
    for (const index of indexes) await client.query(index.indexdef);
    await client.query("COMMIT");
    // What autovacuum would have done to a store that grew this history over time.
    await client.query("VACUUM ANALYZE history_events");
    await client.query("CHECKPOINT");
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM history_events");
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

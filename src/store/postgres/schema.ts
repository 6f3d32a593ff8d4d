import type { PoolClient } from "pg";
import { codeOf } from "../../records/index.js";
import { ChainLinker } from "../chain.js";
import { POOL_MOVED_MARKER, StoreUnavailableError } from "../errors.js";
import {
  CHAIN_COLUMNS,
  CHAIN_STEP,
  CONTROL_PLANE_TABLES,
  describeGaps,
  type EventRow,
  historyEvent,
  type Migration,
  migrations,
  POSTGRES_SHAPE,
  SCHEMA_VERSION,
  schemaTooNew,
  shapeGaps,
  stepAlreadyThere,
} from "../sql/index.js";

export { type Migration, SCHEMA_VERSION } from "../sql/index.js";

/** Every schema step, oldest first, in this store's SQL. */
export const MIGRATIONS: readonly Migration[] = migrations({
  1: `
CREATE TABLE clocks (
  clock_address text PRIMARY KEY,
  segment bigint NOT NULL,
  tick bigint NOT NULL,
  generation bigint NOT NULL,
  paused boolean NOT NULL,
  updated_at text NOT NULL
);
CREATE TABLE schedulers (
  participant_address text NOT NULL,
  policy_address text NOT NULL,
  lifecycle text NOT NULL,
  stop_reason text,
  next_ordinal bigint NOT NULL,
  attempts bigint NOT NULL,
  cursor bigint NOT NULL,
  updated_at text NOT NULL,
  saved_order bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (participant_address, policy_address)
);
CREATE TABLE invocations (
  id text PRIMARY KEY,
  policy_address text NOT NULL,
  participant_address text NOT NULL,
  action_contract_address text NOT NULL,
  observation_boundary_address text NOT NULL,
  episode_id text NOT NULL,
  segment bigint NOT NULL,
  tick bigint NOT NULL,
  ordinal bigint NOT NULL,
  execution_scope_ref text NOT NULL,
  execution_generation bigint NOT NULL,
  observation_point text NOT NULL,
  participant_implementation_ref text NOT NULL,
  state text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  opened_order bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX invocations_open ON invocations (participant_address, opened_order) WHERE state = 'running';
CREATE TABLE tool_actions (
  id text PRIMARY KEY,
  invocation_id text NOT NULL REFERENCES invocations (id),
  participant_address text NOT NULL,
  tool_call_id text NOT NULL,
  admission_ordinal bigint NOT NULL,
  request_digest text NOT NULL,
  request json NOT NULL,
  phase text NOT NULL,
  settlement text,
  failure_class text,
  evidence_refs json,
  unknown_reason text,
  resolution json,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  UNIQUE (invocation_id, tool_call_id)
);
CREATE INDEX tool_actions_by_participant ON tool_actions (participant_address, phase);
CREATE INDEX tool_actions_by_phase ON tool_actions (phase);
CREATE TABLE history_events (
  sequence bigint PRIMARY KEY,
  participant_address text NOT NULL,
  episode_id text NOT NULL,
  action_instance_id text NOT NULL,
  body json NOT NULL
);
CREATE INDEX history_by_participant ON history_events (participant_address, episode_id, sequence);
CREATE INDEX history_by_episode ON history_events (episode_id, sequence);
CREATE INDEX history_by_action ON history_events (action_instance_id);
CREATE TABLE history_head (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_sequence bigint NOT NULL
);
INSERT INTO history_head (last_sequence) VALUES (0);
CREATE TABLE leases (
  participant_address text PRIMARY KEY,
  owner_id text,
  token bigint NOT NULL,
  expires_at bigint NOT NULL
);
`,
  2: `
CREATE INDEX invocations_running ON invocations (opened_order) WHERE state = 'running';
DROP INDEX history_by_participant;
CREATE INDEX history_by_participant ON history_events (participant_address, sequence);
`,
  3: `
ALTER TABLE schedulers ADD COLUMN segment bigint NOT NULL DEFAULT 0;
ALTER TABLE schedulers ADD COLUMN tick bigint NOT NULL DEFAULT 0;
`,
  4: `
ALTER TABLE schedulers ADD COLUMN continuation text;
`,
  // Rows older than this step keep only the times their created_at/updated_at still tell.
  5: `
ALTER TABLE invocations ADD COLUMN started_at text;
ALTER TABLE invocations ADD COLUMN ended_at text;
ALTER TABLE tool_actions ADD COLUMN admitted_at text;
ALTER TABLE tool_actions ADD COLUMN dispatched_at text;
ALTER TABLE tool_actions ADD COLUMN settled_at text;
UPDATE invocations SET started_at = created_at;
UPDATE invocations SET ended_at = updated_at WHERE state <> 'running';
UPDATE tool_actions SET admitted_at = created_at;
UPDATE tool_actions SET dispatched_at = updated_at WHERE phase = 'dispatched';
UPDATE tool_actions SET settled_at = updated_at WHERE phase = 'settled' AND resolution IS NULL;
`,
  6: `
ALTER TABLE invocations ADD COLUMN refusals text;
CREATE INDEX invocations_by_time ON invocations (created_at COLLATE "C", id COLLATE "C");
CREATE INDEX invocations_by_state ON invocations (state, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX invocations_by_participant ON invocations (participant_address, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX invocations_by_participant_state ON invocations (participant_address, state, created_at COLLATE "C", id COLLATE "C");
DROP INDEX tool_actions_by_phase;
DROP INDEX tool_actions_by_participant;
CREATE INDEX tool_actions_by_phase ON tool_actions (phase, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX tool_actions_by_participant ON tool_actions (participant_address, phase, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX tool_actions_by_time ON tool_actions (created_at COLLATE "C", id COLLATE "C");
CREATE INDEX tool_actions_by_settlement ON tool_actions (settlement, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX tool_actions_by_participant_time ON tool_actions (participant_address, created_at COLLATE "C", id COLLATE "C");
CREATE INDEX tool_actions_by_participant_settlement ON tool_actions (participant_address, settlement, created_at COLLATE "C", id COLLATE "C");
`,
  // Rows older than this step learn both from the next manager that opens them.
  7: `
ALTER TABLE schedulers ADD COLUMN attempt_bound bigint;
ALTER TABLE schedulers ADD COLUMN stream_fingerprint text;
`,
  // Rows recovered before this step keep the recovery time as their end, as they were written.
  8: `
ALTER TABLE invocations ADD COLUMN recovered_at text;
ALTER TABLE tool_actions ADD COLUMN recovered_at text;
`,
  9: `
CREATE TABLE runtime_processes (
  owner_id text PRIMARY KEY,
  expires_at bigint NOT NULL
);
`,
  // A history body (~2 KB of JSON) is just over the size PostgreSQL compresses; lz4 does it in about
  // half pglz's time. Bodies stored before keep pglz; a server without lz4 (or before 14) keeps pglz.
  10: `
DO $$
BEGIN
  EXECUTE 'ALTER TABLE history_events ALTER COLUMN body SET COMPRESSION lz4';
EXCEPTION WHEN OTHERS THEN NULL;
END $$;
`,
  // SQLite's packing: PostgreSQL's json column and lz4 keep bodies as they are.
  11: "SELECT 1",
  // Rows older than this step learn the digest from the next manager that opens them.
  12: "ALTER TABLE schedulers ADD COLUMN policy_digest text;",
  // The events already written are chained by backfillChains, in the same transaction.
  13: `
ALTER TABLE history_events ADD COLUMN chain_digest text;
CREATE TABLE history_chains (
  participant_address text PRIMARY KEY,
  scenario_digest text,
  manifest_digest text,
  head_digest text NOT NULL,
  head_sequence bigint NOT NULL,
  events bigint NOT NULL,
  backfilled_at text
);
CREATE FUNCTION raes_chain_digests(participants text[], befores text[], afters text[], geneses text[],
  first_sequence bigint) RETURNS text[] LANGUAGE plpgsql AS $fn$
DECLARE
  heads jsonb := '{}';
  digests text[] := '{}';
  previous text;
  digest text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(participants, 1), 0) LOOP
    previous := heads ->> participants[i];
    IF previous IS NULL THEN
      SELECT head_digest INTO previous FROM history_chains WHERE participant_address = participants[i];
    END IF;
    digest := 'sha256:' || encode(sha256(convert_to(coalesce(previous, geneses[i]) || befores[i]
      || (first_sequence + i - 1)::text || afters[i], 'UTF8')), 'hex');
    heads := heads || jsonb_build_object(participants[i], digest);
    digests := digests || digest;
  END LOOP;
  RETURN digests;
END
$fn$;
`,
  // Decisions made before this step (resolutions) are not chained: they name no operator.
  14: `
CREATE TABLE operator_decisions (
  sequence bigint PRIMARY KEY,
  kind text NOT NULL,
  subject text NOT NULL,
  operator text NOT NULL,
  note text NOT NULL,
  decided_at text NOT NULL,
  chain_digest text NOT NULL
);
CREATE TABLE operator_chain (
  id integer PRIMARY KEY CHECK (id = 1),
  head_digest text NOT NULL,
  head_sequence bigint NOT NULL,
  decisions bigint NOT NULL
);
`,
  // Only an action raes-ts withholds from here on has a reason; older rows keep none.
  15: "ALTER TABLE tool_actions ADD COLUMN withheld_reason text;",
  // Only a call held for approval from here on has one (docs/guide/approvals.md); older rows keep none.
  16: "ALTER TABLE tool_actions ADD COLUMN approval json;",
  // Participants scheduled before this step get their record from the next manager that opens the store.
  17: `
CREATE TABLE participant_services (
  participant_address text PRIMARY KEY,
  revision bigint NOT NULL,
  service text NOT NULL,
  control_actions text NOT NULL,
  clock_generation bigint NOT NULL,
  episode text,
  episode_history text NOT NULL,
  updated_at text NOT NULL
);
`,
  // Written with the scheduler row, so a reservation commits with the invocation that holds it.
  18: "ALTER TABLE schedulers ADD COLUMN resources text;",
  // Every scheduler write is an upsert, so BEFORE INSERT sees each one, and compares with the stored row.
  // Pools are locked in key order, so two holds over the same pools wait for each other, never deadlock.
  19: `
CREATE TABLE resource_pools (
  pool_key text PRIMARY KEY,
  version bigint NOT NULL
);
CREATE FUNCTION raes_resource_hold() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  held jsonb := NEW.resources::jsonb -> 'held';
  stored text;
  pool record;
  at_version bigint;
BEGIN
  IF held IS NULL OR held -> 'poolVersions' IS NULL THEN RETURN NEW; END IF;
  SELECT resources::jsonb #>> '{held,operationId}' INTO stored FROM schedulers
  WHERE participant_address = NEW.participant_address AND policy_address = NEW.policy_address;
  IF stored IS NOT DISTINCT FROM held ->> 'operationId' THEN RETURN NEW; END IF;
  FOR pool IN
    SELECT key, value::bigint AS version FROM jsonb_each_text(held -> 'poolVersions') ORDER BY key COLLATE "C"
  LOOP
    INSERT INTO resource_pools (pool_key, version) VALUES (pool.key, 0) ON CONFLICT (pool_key) DO NOTHING;
    SELECT version INTO at_version FROM resource_pools WHERE pool_key = pool.key FOR UPDATE;
    IF at_version <> pool.version THEN
      RAISE EXCEPTION '${POOL_MOVED_MARKER}: % is at version %, the hold was checked at %',
        pool.key, at_version, pool.version;
    END IF;
    UPDATE resource_pools SET version = at_version + 1 WHERE pool_key = pool.key;
  END LOOP;
  RETURN NEW;
END $$;
CREATE TRIGGER schedulers_resource_hold BEFORE INSERT ON schedulers
FOR EACH ROW EXECUTE FUNCTION raes_resource_hold();
`,
  20: `
CREATE TABLE pacing_deviations (
  participant_address text NOT NULL,
  ref text NOT NULL,
  policy_address text NOT NULL,
  clock_address text NOT NULL,
  generation bigint NOT NULL,
  lateness_ms double precision NOT NULL,
  bound_ms double precision NOT NULL,
  recorded_at text NOT NULL,
  PRIMARY KEY (participant_address, ref)
);
`,
  // Null for every decision but a policy_change (and a resolve's resolution); older decisions keep none (their digests hold).
  21: `
ALTER TABLE operator_decisions ADD COLUMN policy_address text;
ALTER TABLE operator_decisions ADD COLUMN previous_policy_digest text;
ALTER TABLE operator_decisions ADD COLUMN policy_digest text;
ALTER TABLE operator_decisions ADD COLUMN resolution text;
`,
  // Every scheduler write is an upsert, so BEFORE INSERT sees each one. Each write carries at most one
  // new transition, the log's last entry (docs/guide/operations.md#budget-events): it is copied once, by
  // its number, in the write's own transaction. \`json\` keeps the entry's canonical text as written.
  22: `
CREATE TABLE budget_events (
  sequence bigserial PRIMARY KEY,
  participant_address text NOT NULL,
  policy_address text NOT NULL,
  seq bigint NOT NULL,
  transition text NOT NULL,
  operation_id text NOT NULL,
  tick bigint NOT NULL,
  segment bigint NOT NULL,
  generation bigint NOT NULL,
  payload text NOT NULL,
  UNIQUE (participant_address, policy_address, seq)
);
CREATE INDEX budget_events_participant ON budget_events (participant_address, sequence);
CREATE FUNCTION raes_budget_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  entry json;
BEGIN
  IF NEW.resources IS NULL THEN RETURN NEW; END IF;
  entry := NEW.resources::json -> 'log' -> -1;
  IF entry IS NULL OR entry ->> 'seq' IS NULL THEN RETURN NEW; END IF;
  IF EXISTS (SELECT 1 FROM budget_events WHERE participant_address = NEW.participant_address
      AND policy_address = NEW.policy_address AND seq = (entry ->> 'seq')::bigint) THEN
    RETURN NEW;
  END IF;
  INSERT INTO budget_events (participant_address, policy_address, seq, transition, operation_id, tick,
    segment, generation, payload)
  VALUES (NEW.participant_address, NEW.policy_address, (entry ->> 'seq')::bigint, entry ->> 'transition',
    entry ->> 'operationId', (entry ->> 'tick')::bigint, (entry ->> 'segment')::bigint,
    (entry ->> 'generation')::bigint, entry::text)
  ON CONFLICT (participant_address, policy_address, seq) DO NOTHING;
  RETURN NEW;
END $$;
CREATE TRIGGER schedulers_budget_event BEFORE INSERT ON schedulers
FOR EACH ROW EXECUTE FUNCTION raes_budget_event();
`,
  // A bigserial is taken at insert, not at commit: a writer that took a lower sequence and commits
  // later would fall behind a pager's --after N. Each new event now takes its sequence under the
  // history_head row lock, held to the commit, so budget events commit in sequence order (as history
  // events do). One lock for both: a write carrying history events and a budget event never waits on
  // itself in another order. It is taken before the scheduler row's own lock (BEFORE INSERT).
  23: `
CREATE OR REPLACE FUNCTION raes_budget_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  entry json;
BEGIN
  IF NEW.resources IS NULL THEN RETURN NEW; END IF;
  entry := NEW.resources::json -> 'log' -> -1;
  IF entry IS NULL OR entry ->> 'seq' IS NULL THEN RETURN NEW; END IF;
  IF EXISTS (SELECT 1 FROM budget_events WHERE participant_address = NEW.participant_address
      AND policy_address = NEW.policy_address AND seq = (entry ->> 'seq')::bigint) THEN
    RETURN NEW;
  END IF;
  PERFORM 1 FROM history_head FOR UPDATE;
  INSERT INTO budget_events (participant_address, policy_address, seq, transition, operation_id, tick,
    segment, generation, payload)
  VALUES (NEW.participant_address, NEW.policy_address, (entry ->> 'seq')::bigint, entry ->> 'transition',
    entry ->> 'operationId', (entry ->> 'tick')::bigint, (entry ->> 'segment')::bigint,
    (entry ->> 'generation')::bigint, entry::text)
  ON CONFLICT (participant_address, policy_address, seq) DO NOTHING;
  RETURN NEW;
END $$;
`,
  // Null in older rows: the next runtime takes the service's count as honoured (docs/guide/operations.md).
  24: "ALTER TABLE schedulers ADD COLUMN execution_resets bigint;",
});

/** Events read per page while chaining a store written before step 13: bounded memory at any length. */
const BACKFILL_PAGE = 2000;

/**
 * Chains the events written before schema step 13, once, in commit order, inside the migration's
 * transaction; each chain it computes records the step's time as `backfilled_at`. Their chains have
 * no anchor: the scenario and manifest they ran under were never recorded.
 */
async function backfillChains(client: PoolClient, at: string): Promise<void> {
  const chains = new ChainLinker(() => undefined);
  for (let after = 0; ; ) {
    const { rows } = await client.query<EventRow>(
      `SELECT sequence, body::text AS body FROM history_events WHERE sequence > $1::bigint
       ORDER BY sequence LIMIT ${BACKFILL_PAGE}`,
      [after],
    );
    if (rows.length === 0) break;
    const sequences: number[] = [];
    const digests: string[] = [];
    for (const row of rows) {
      const event = historyEvent(row);
      sequences.push(event.sequence);
      digests.push(chains.link(event));
      after = event.sequence;
    }
    await client.query(
      `UPDATE history_events AS h SET chain_digest = t.digest
       FROM unnest($1::bigint[], $2::text[]) AS t(sequence, digest) WHERE h.sequence = t.sequence`,
      [sequences, digests],
    );
  }
  for (const head of chains.heads()) {
    await client.query(
      `INSERT INTO history_chains (${CHAIN_COLUMNS.join(", ")}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      CHAIN_COLUMNS.map((c) => (c === "backfilled_at" ? at : head[c])),
    );
  }
}

/** Serializes migrations of every raes-ts process sharing the database. */
const MIGRATION_LOCK = 0x7261_6573;

/**
 * Creates the schema if needed and applies every missing migration in one transaction under an
 * advisory lock. `url` (as shown to users) names the store in a refusal.
 */
export async function migrate(
  client: PoolClient,
  schema: string | undefined,
  url = schema ?? "on the search_path",
): Promise<void> {
  // At read committed whatever the session says: the advisory lock is taken before the snapshot.
  await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (schema !== undefined) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`SET LOCAL search_path TO ${schema}`);
    } else {
      // The store the search path finds is the one migrated: CREATE TABLE would otherwise make a
      // second, empty one in the first schema on the path (an empty one before the store's, say).
      const { rows } = await client.query<{ home: string | null }>(
        `SELECT quote_ident(n.nspname) AS home FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
         WHERE c.oid = to_regclass('schema_migrations')`,
      );
      const home = rows[0]?.home;
      if (home) await client.query(`SET LOCAL search_path TO ${home}`);
    }
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersion(client);
    if (current > SCHEMA_VERSION) {
      throw schemaTooNew(current);
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql).catch((error: unknown) => {
        throw alreadyThere(error) ? stepAlreadyThere(url, migration.version, error) : error;
      });
      if (migration.version === CHAIN_STEP) await backfillChains(client, new Date().toISOString());
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** SQLSTATEs of a step that finds what it adds already there: a duplicate table, column, object or function. */
const ALREADY_THERE = new Set(["42P07", "42701", "42710", "42723"]);
const alreadyThere = (error: unknown) => ALREADY_THERE.has(codeOf(error) ?? "");

/**
 * The columns and triggers of the tables `$1` names, and the functions `$2` names in the schema of
 * `schema_migrations`, each table resolved by the search path as every statement of the store resolves
 * it, with the step the store is at. Every lookup goes by an index (a table's oid, a function's name),
 * so a catalog that many schemas came and went in costs no scan; oids are compared, so a quoted or
 * mixed-case schema name is never re-parsed.
 */
const SHAPE = `WITH home AS (SELECT relnamespace AS ns FROM pg_class WHERE oid = to_regclass('schema_migrations')),
  tables AS (SELECT t.name, to_regclass(t.name) AS oid FROM unnest($1::text[]) AS t(name))
  SELECT 'column' AS kind, tables.name || '.' || a.attname AS name
    FROM tables JOIN pg_attribute AS a ON a.attrelid = tables.oid
    WHERE a.attnum > 0 AND NOT a.attisdropped
  UNION ALL SELECT 'elsewhere', tables.name || ' ' || quote_ident(n.nspname)
    FROM tables JOIN pg_class AS c ON c.oid = tables.oid JOIN pg_namespace AS n ON n.oid = c.relnamespace
    WHERE c.relnamespace <> (SELECT ns FROM home)
  UNION ALL SELECT CASE WHEN t.tgenabled IN ('O', 'A') THEN 'trigger' ELSE 'disabled' END, t.tgname
    FROM tables JOIN pg_trigger AS t ON t.tgrelid = tables.oid WHERE NOT t.tgisinternal
  UNION ALL SELECT 'function', p.proname FROM pg_proc AS p
    WHERE p.proname = ANY ($2::text[]) AND p.pronamespace = (SELECT ns FROM home)
  UNION ALL SELECT 'version', coalesce(max(version), 0)::text FROM schema_migrations`;

/**
 * Why the store's schema cannot be served as it is, or undefined: at the current step, a table,
 * column or (`writes`) trigger or function is missing, or a trigger is disabled. One round trip; a
 * schema at an older step (read-only) is read as that step left it and is not checked.
 */
export async function schemaDamage(client: PoolClient, writes: boolean): Promise<string | undefined> {
  const { rows } = await client.query<{ kind: string; name: string }>(SHAPE, [
    Object.keys(POSTGRES_SHAPE.tables),
    POSTGRES_SHAPE.functions,
  ]);
  const of = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => r.name);
  if (Number(of("version")[0]) !== SCHEMA_VERSION) return undefined;
  const found = {
    columns: of("column"),
    triggers: of("trigger"),
    disabledTriggers: of("disabled"),
    functions: of("function"),
  };
  // A table of the same name earlier on the search path is the one the store's statements would use:
  // named as such, not by the columns it lacks.
  // "table namespace": the table is one of the store's names (no space); the namespace is quoted as needed.
  const elsewhere = new Map(
    of("elsewhere").map((e) => [e.slice(0, e.indexOf(" ")), e.slice(e.indexOf(" ") + 1)]),
  );
  const gaps = [
    ...[...elsewhere].map(
      ([table, ns]) => `table ${table} of its own (the search path finds ${ns}.${table} first)`,
    ),
    ...shapeGaps(POSTGRES_SHAPE, found, writes).filter(
      (gap) => !elsewhere.has(gap.replace(/^(table|column) /, "").split(".")[0] ?? ""),
    ),
  ];
  if (gaps.length > 0) return describeGaps(gaps);
  // Every commit of events numbers them from this one row: without it they would not be written.
  const head = await client.query<{ rows: number }>("SELECT count(*)::integer AS rows FROM history_head");
  return head.rows[0]?.rows === 1 ? undefined : "its history_head table does not hold its one row";
}

/** What of a control plane a schema holds. */
export interface ControlPlaneTables {
  /** It holds a `schema_migrations` table. */
  readonly migrated: boolean;
  /** That table is another tool's: it lacks raes-ts's `name` and `applied_at` columns. */
  readonly foreign: boolean;
  /** It holds every one of `CONTROL_PLANE_TABLES`. */
  readonly marked: boolean;
}

/**
 * What of a control plane `schema` (else the search path) holds, in one statement: a migration
 * another process commits meanwhile is seen whole or not at all.
 */
export async function controlPlaneTables(
  client: PoolClient,
  schema: string | undefined,
): Promise<ControlPlaneTables> {
  const named = (table: string) => (schema === undefined ? table : `${schema}.${table}`);
  const { rows } = await client.query<ControlPlaneTables>(
    `SELECT to_regclass($1) IS NOT NULL AS migrated,
       to_regclass($1) IS NOT NULL AND (SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1)
         AND attname IN ('name', 'applied_at') AND NOT attisdropped) < 2 AS foreign,
       (SELECT bool_and(to_regclass(t) IS NOT NULL) FROM unnest($2::text[]) AS t) AS marked`,
    [named("schema_migrations"), CONTROL_PLANE_TABLES.map(named)],
  );
  const row = rows[0];
  return { migrated: row?.migrated === true, foreign: row?.foreign === true, marked: row?.marked === true };
}

/**
 * The last step `schema_migrations` records (0: none), the table found by the search path as every
 * statement of the store finds it.
 */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ version: number }>(
    "SELECT coalesce(max(version), 0)::integer AS version FROM schema_migrations",
  );
  return rows[0]?.version ?? 0;
}

/** Which later steps' tables a schema read as it is holds (`raes verify --store` reads older ones). */
export interface ReadTables {
  /** The history chains of step 13: `chain_digest` on every event and the chain heads. */
  readonly chained: boolean;
  /** The operator chain of step 14. */
  readonly decided: boolean;
  /** The participant services of step 17. */
  readonly serviced: boolean;
  /** The budget events of step 22. */
  readonly budgeted?: boolean;
}

/** A schema this code migrated: every table. */
export const ALL_TABLES: ReadTables = { chained: true, decided: true, serviced: true, budgeted: true };

/**
 * The oldest step a read-only open reads as it is, as in SQLite: a schema before step 13 reads with no
 * chain digests and no chain heads, and `raes verify` says its history is not chained.
 */
const READABLE_FROM = 9;

/**
 * The tables a schema opened read-only holds, read without writing anything: refused when its version
 * is newer than this code's, or older than `READABLE_FROM`.
 */
export async function readableTables(client: PoolClient): Promise<ReadTables> {
  const current = await schemaVersion(client);
  if (current > SCHEMA_VERSION) throw schemaTooNew(current);
  if (current < READABLE_FROM) {
    throw new StoreUnavailableError(
      `control-plane schema is at version ${current}, expected ${SCHEMA_VERSION}; open it writable once to migrate`,
    );
  }
  const has = async (table: string): Promise<boolean> => {
    const found = await client.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [
      table,
    ]);
    return found.rows[0]?.found != null;
  };
  return {
    // By the migrations, not the table: an emptied or dropped chain table at a later step is tampering.
    chained: current >= 13,
    decided: await has("operator_decisions"),
    serviced: await has("participant_services"),
    budgeted: await has("budget_events"),
  };
}

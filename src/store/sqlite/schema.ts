import type { Database } from "better-sqlite3";
import { ChainLinker } from "../chain.js";
import { POOL_MOVED_MARKER, StoreUnavailableError } from "../errors.js";
import {
  CHAIN_COLUMNS,
  CHAIN_STEP,
  CONTROL_PLANE_TABLES,
  describeGaps,
  type EventRow,
  MIGRATIONS_LOST,
  type Migration,
  migrations,
  SCHEMA_VERSION,
  SQLITE_SHAPE,
  schemaTooNew,
  shapeGaps,
  stepAlreadyThere,
} from "../sql/index.js";
import { historyEvent } from "./rows.js";

export { type Migration, SCHEMA_VERSION } from "../sql/index.js";

/** Every schema step, oldest first, in this store's SQL. */
export const MIGRATIONS: readonly Migration[] = migrations({
  1: `
CREATE TABLE clocks (
  clock_address TEXT PRIMARY KEY,
  segment INTEGER NOT NULL,
  tick INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  paused INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE schedulers (
  participant_address TEXT NOT NULL,
  policy_address TEXT NOT NULL,
  lifecycle TEXT NOT NULL,
  stop_reason TEXT,
  next_ordinal INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  cursor INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (participant_address, policy_address)
);
CREATE TABLE invocations (
  id TEXT PRIMARY KEY,
  policy_address TEXT NOT NULL,
  participant_address TEXT NOT NULL,
  action_contract_address TEXT NOT NULL,
  observation_boundary_address TEXT NOT NULL,
  episode_id TEXT NOT NULL,
  segment INTEGER NOT NULL,
  tick INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  execution_scope_ref TEXT NOT NULL,
  execution_generation INTEGER NOT NULL,
  observation_point TEXT NOT NULL,
  participant_implementation_ref TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX invocations_open ON invocations (participant_address) WHERE state = 'running';
CREATE TABLE tool_actions (
  id TEXT PRIMARY KEY,
  invocation_id TEXT NOT NULL REFERENCES invocations (id),
  participant_address TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  admission_ordinal INTEGER NOT NULL,
  request_digest TEXT NOT NULL,
  request TEXT NOT NULL,
  phase TEXT NOT NULL,
  settlement TEXT,
  failure_class TEXT,
  evidence_refs TEXT,
  unknown_reason TEXT,
  resolution TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (invocation_id, tool_call_id)
);
CREATE INDEX tool_actions_by_participant ON tool_actions (participant_address, phase);
CREATE INDEX tool_actions_by_phase ON tool_actions (phase);
CREATE TABLE history_events (
  sequence INTEGER PRIMARY KEY,
  participant_address TEXT NOT NULL,
  episode_id TEXT NOT NULL,
  action_instance_id TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX history_by_participant ON history_events (participant_address, episode_id, sequence);
CREATE INDEX history_by_episode ON history_events (episode_id, sequence);
CREATE INDEX history_by_action ON history_events (action_instance_id);
CREATE TABLE leases (
  participant_address TEXT PRIMARY KEY,
  owner_id TEXT,
  token INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  2: `
CREATE INDEX invocations_running ON invocations (state) WHERE state = 'running';
DROP INDEX history_by_participant;
CREATE INDEX history_by_participant ON history_events (participant_address, sequence);
`,
  3: `
ALTER TABLE schedulers ADD COLUMN segment INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedulers ADD COLUMN tick INTEGER NOT NULL DEFAULT 0;
`,
  4: `
ALTER TABLE schedulers ADD COLUMN continuation TEXT;
`,
  // Rows older than this step keep only the times their created_at/updated_at still tell.
  5: `
ALTER TABLE invocations ADD COLUMN started_at TEXT;
ALTER TABLE invocations ADD COLUMN ended_at TEXT;
ALTER TABLE tool_actions ADD COLUMN admitted_at TEXT;
ALTER TABLE tool_actions ADD COLUMN dispatched_at TEXT;
ALTER TABLE tool_actions ADD COLUMN settled_at TEXT;
UPDATE invocations SET started_at = created_at;
UPDATE invocations SET ended_at = updated_at WHERE state <> 'running';
UPDATE tool_actions SET admitted_at = created_at;
UPDATE tool_actions SET dispatched_at = updated_at WHERE phase = 'dispatched';
UPDATE tool_actions SET settled_at = updated_at WHERE phase = 'settled' AND resolution IS NULL;
`,
  6: `
ALTER TABLE invocations ADD COLUMN refusals TEXT;
CREATE INDEX invocations_by_time ON invocations (created_at, id);
CREATE INDEX invocations_by_state ON invocations (state, created_at, id);
CREATE INDEX invocations_by_participant ON invocations (participant_address, created_at, id);
CREATE INDEX invocations_by_participant_state ON invocations (participant_address, state, created_at, id);
DROP INDEX tool_actions_by_phase;
DROP INDEX tool_actions_by_participant;
CREATE INDEX tool_actions_by_phase ON tool_actions (phase, created_at, id);
CREATE INDEX tool_actions_by_participant ON tool_actions (participant_address, phase, created_at, id);
CREATE INDEX tool_actions_by_time ON tool_actions (created_at, id);
CREATE INDEX tool_actions_by_settlement ON tool_actions (settlement, created_at, id);
CREATE INDEX tool_actions_by_participant_time ON tool_actions (participant_address, created_at, id);
CREATE INDEX tool_actions_by_participant_settlement ON tool_actions (participant_address, settlement, created_at, id);
`,
  // Rows older than this step learn both from the next manager that opens them.
  7: `
ALTER TABLE schedulers ADD COLUMN attempt_bound INTEGER;
ALTER TABLE schedulers ADD COLUMN stream_fingerprint TEXT;
`,
  // Rows recovered before this step keep the recovery time as their end, as they were written.
  8: `
ALTER TABLE invocations ADD COLUMN recovered_at TEXT;
ALTER TABLE tool_actions ADD COLUMN recovered_at TEXT;
`,
  9: `
CREATE TABLE runtime_processes (
  owner_id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
`,
  10: "-- SQLite does not compress: history bodies stay as they are.",
  // Bodies written from this step are packed (packed-body.ts); older ones stay JSON objects and are
  // read as they are. The step is what keeps an older raes-ts, which could not read them, out.
  11: "-- History bodies written from here are packed; nothing to change in the tables.",
  // Rows older than this step learn the digest from the next manager that opens them.
  12: "ALTER TABLE schedulers ADD COLUMN policy_digest TEXT;",
  // The events already written are chained by backfillChains, in the same transaction.
  13: `
ALTER TABLE history_events ADD COLUMN chain_digest TEXT;
CREATE TABLE history_chains (
  participant_address TEXT PRIMARY KEY,
  scenario_digest TEXT,
  manifest_digest TEXT,
  head_digest TEXT NOT NULL,
  head_sequence INTEGER NOT NULL,
  events INTEGER NOT NULL,
  backfilled_at TEXT
);
`,
  // Decisions made before this step (resolutions) are not chained: they name no operator.
  14: `
CREATE TABLE operator_decisions (
  sequence INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  operator TEXT NOT NULL,
  note TEXT NOT NULL,
  decided_at TEXT NOT NULL,
  chain_digest TEXT NOT NULL
);
CREATE TABLE operator_chain (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  head_digest TEXT NOT NULL,
  head_sequence INTEGER NOT NULL,
  decisions INTEGER NOT NULL
);
`,
  // Only an action raes-ts withholds from here on has a reason; older rows keep none.
  15: "ALTER TABLE tool_actions ADD COLUMN withheld_reason TEXT;",
  // Only a call held for approval from here on has one (docs/guide/approvals.md); older rows keep none.
  16: "ALTER TABLE tool_actions ADD COLUMN approval TEXT;",
  // Participants scheduled before this step get their record from the next manager that opens the store.
  17: `
CREATE TABLE participant_services (
  participant_address TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  service TEXT NOT NULL,
  control_actions TEXT NOT NULL,
  clock_generation INTEGER NOT NULL,
  episode TEXT,
  episode_history TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  // Written with the scheduler row, so a reservation commits with the invocation that holds it.
  18: "ALTER TABLE schedulers ADD COLUMN resources TEXT;",
  // Every scheduler write is an upsert, so BEFORE INSERT sees each one, and compares with the stored row.
  19: `
CREATE TABLE resource_pools (
  pool_key TEXT PRIMARY KEY,
  version INTEGER NOT NULL
);
CREATE TRIGGER schedulers_resource_hold BEFORE INSERT ON schedulers
WHEN json_extract(NEW.resources, '$.held.poolVersions') IS NOT NULL
  AND json_extract(NEW.resources, '$.held.operationId') IS NOT (
    SELECT json_extract(resources, '$.held.operationId') FROM schedulers
    WHERE participant_address = NEW.participant_address AND policy_address = NEW.policy_address)
BEGIN
  SELECT RAISE(ABORT, '${POOL_MOVED_MARKER}')
  FROM json_each(NEW.resources, '$.held.poolVersions') AS e
  WHERE e.value IS NOT coalesce((SELECT version FROM resource_pools WHERE pool_key = e.key), 0);
  INSERT INTO resource_pools (pool_key, version)
  SELECT e.key, e.value + 1 FROM json_each(NEW.resources, '$.held.poolVersions') AS e WHERE true
  ON CONFLICT (pool_key) DO UPDATE SET version = excluded.version;
END;
`,
  20: `
CREATE TABLE pacing_deviations (
  participant_address TEXT NOT NULL,
  ref TEXT NOT NULL,
  policy_address TEXT NOT NULL,
  clock_address TEXT NOT NULL,
  generation INTEGER NOT NULL,
  lateness_ms REAL NOT NULL,
  bound_ms REAL NOT NULL,
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (participant_address, ref)
);
`,
  // Null for every decision but a policy_change (and a resolve's resolution); older decisions keep none (their digests hold).
  21: `
ALTER TABLE operator_decisions ADD COLUMN policy_address TEXT;
ALTER TABLE operator_decisions ADD COLUMN previous_policy_digest TEXT;
ALTER TABLE operator_decisions ADD COLUMN policy_digest TEXT;
ALTER TABLE operator_decisions ADD COLUMN resolution TEXT;
`,
  // Every scheduler write is an upsert, so BEFORE INSERT sees each one. Each write carries at most one
  // new transition, the log's last entry (docs/guide/operations.md#budget-events): it is copied once, by
  // its number, in the write's own transaction. Ledgers written before this step have no numbers.
  22: `
CREATE TABLE budget_events (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  participant_address TEXT NOT NULL,
  policy_address TEXT NOT NULL,
  seq INTEGER NOT NULL,
  transition TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  tick INTEGER NOT NULL,
  segment INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  payload TEXT NOT NULL,
  UNIQUE (participant_address, policy_address, seq)
);
CREATE INDEX budget_events_participant ON budget_events (participant_address, sequence);
CREATE TRIGGER schedulers_budget_event BEFORE INSERT ON schedulers
WHEN json_extract(NEW.resources, '$.log[#-1].seq') IS NOT NULL
BEGIN
  INSERT INTO budget_events (participant_address, policy_address, seq, transition, operation_id, tick,
    segment, generation, payload)
  SELECT NEW.participant_address, NEW.policy_address, json_extract(e.v, '$.seq'),
    json_extract(e.v, '$.transition'), json_extract(e.v, '$.operationId'), json_extract(e.v, '$.tick'),
    json_extract(e.v, '$.segment'), json_extract(e.v, '$.generation'), e.v
  FROM (SELECT json_extract(NEW.resources, '$.log[#-1]') AS v) AS e
  WHERE NOT EXISTS (SELECT 1 FROM budget_events WHERE participant_address = NEW.participant_address
    AND policy_address = NEW.policy_address AND seq = json_extract(e.v, '$.seq'));
END;
`,
  // One writer at a time: a budget event's sequence is already in commit order.
  23: "-- SQLite commits one write at a time; nothing to change.",
  // Null in older rows: the next runtime takes the service's count as honoured (docs/guide/operations.md).
  24: "ALTER TABLE schedulers ADD COLUMN execution_resets INTEGER;",
});

/** Events read per page while chaining a store written before step 13: bounded memory at any length. */
const BACKFILL_PAGE = 2000;

/**
 * Chains the events written before schema step 13, once, in commit order, inside the migration's
 * transaction; each chain it computes records the step's time as `backfilled_at`. Their chains have
 * no anchor: the scenario and manifest they ran under were never recorded.
 */
function backfillChains(db: Database, at: string): void {
  const page = db.prepare<[number], EventRow>(
    `SELECT sequence, participant_address, episode_id, action_instance_id, body FROM history_events
     WHERE sequence > ? ORDER BY sequence LIMIT ${BACKFILL_PAGE}`,
  );
  const set = db.prepare<[string, number]>("UPDATE history_events SET chain_digest = ? WHERE sequence = ?");
  const chains = new ChainLinker(() => undefined);
  for (let after = 0; ; ) {
    const rows = page.all(after);
    if (rows.length === 0) break;
    for (const row of rows) {
      set.run(chains.link(historyEvent(row)), row.sequence);
      after = row.sequence;
    }
  }
  const insert = db.prepare(
    `INSERT INTO history_chains (${CHAIN_COLUMNS.join(", ")}) VALUES (${CHAIN_COLUMNS.map((c) => `@${c}`).join(", ")})`,
  );
  for (const head of chains.heads()) insert.run({ ...head, backfilled_at: at });
}

/**
 * Applies every missing migration under the database write lock, so concurrent openers agree. A
 * store already at this code's step is only read: its open takes no write lock, so it neither waits
 * for nor holds off another process's long write (a recovery's), which readers never block in WAL.
 */
export function migrate(db: Database, url: string): void {
  if (isCurrent(db)) return;
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const current = appliedVersion(db);
    if (current > SCHEMA_VERSION) throw schemaTooNew(current);
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      const at = new Date().toISOString();
      try {
        db.exec(migration.sql);
      } catch (error) {
        throw alreadyThere(error) ? stepAlreadyThere(url, migration.version, error) : error;
      }
      if (migration.version === CHAIN_STEP) backfillChains(db, at);
      record.run(migration.version, migration.name, at);
    }
  }).immediate();
}

/**
 * The oldest step a read-only open reads as it is: the later steps change how new bodies are written
 * (10, 11) or add the chain (13), and a store before step 13 reads with no chain digests and no chain
 * heads. A write-protected copy of an older store (evidence after a crash) is readable without being
 * migrated; `raes verify` says its history is not chained.
 */
const READABLE_FROM = 9;

/**
 * Whether the database is at step 13, which chains history (a read-only store may be older): by its
 * migrations, so a chain table emptied or dropped at a later step reads as tampered, not as unchained.
 */
export function hasChains(db: Database): boolean {
  return appliedVersion(db) >= CHAINS_STEP;
}

/** The schema step that added history chains. */
const CHAINS_STEP = 13;

/** Whether the database has the operator chain of step 14 (a read-only store may be older). */
export function hasDecisions(db: Database): boolean {
  return hasTable(db, "operator_decisions");
}

/** Whether the database has the resource pools of step 19 (a read-only store may be older). */
export function hasPools(db: Database): boolean {
  return hasTable(db, "resource_pools");
}

/** Whether the database has the budget events of step 22 (a read-only store may be older). */
export function hasBudgetEvents(db: Database): boolean {
  return hasTable(db, "budget_events");
}

/** Whether the database has the pacing deviations of step 20 (a read-only store may be older). */
export function hasPacingDeviations(db: Database): boolean {
  return hasTable(db, "pacing_deviations");
}

/** Whether the database has the participant services of step 17 (a read-only store may be older). */
export function hasServices(db: Database): boolean {
  return hasTable(db, "participant_services");
}

/** SQLite's words for a step whose table, column, index or trigger is already there. */
const ALREADY_THERE = /already exists|^duplicate column name/;
const alreadyThere = (error: unknown) => error instanceof Error && ALREADY_THERE.test(error.message);

/**
 * Why a file cannot be served because its migrations table is gone while its tables are there, or
 * undefined (a store, a new file, someone else's database). One statement, so a migration another
 * process commits meanwhile is seen whole or not at all.
 */
export function lostMigrations(db: Database): string | undefined {
  const [migrations, ...marks] = db
    .prepare(
      "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = value) FROM json_each(?)",
    )
    .pluck()
    .all(JSON.stringify(["schema_migrations", ...CONTROL_PLANE_TABLES])) as number[];
  return migrations === 0 && marks.every((found) => found > 0) ? MIGRATIONS_LOST : undefined;
}

/**
 * Why a migrated schema cannot be served as it is, or undefined: at the current step, a table,
 * column or (`writes`) trigger is missing. A read-only store at an older step is read as that step
 * left it and is not checked.
 */
export function schemaDamage(db: Database, writes: boolean): string | undefined {
  if (appliedVersion(db) !== SCHEMA_VERSION) return undefined;
  // Only the tables the store uses: a table of the user's own may not even open here (an unknown module).
  const columns = db
    .prepare(
      `SELECT m.name || '.' || p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
       WHERE m.type = 'table' AND m.name IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(JSON.stringify(Object.keys(SQLITE_SHAPE.tables))) as string[];
  const triggers = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    .pluck()
    .all() as string[];
  const gaps = shapeGaps(SQLITE_SHAPE, { columns, triggers, functions: [] }, writes);
  return gaps.length === 0 ? undefined : describeGaps(gaps);
}

function hasTable(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Refuses a database whose schema this code does not fully know; used when opening read-only. */
export function assertSchemaCurrent(db: Database): void {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  const current = exists ? appliedVersion(db) : 0;
  if (current > SCHEMA_VERSION) throw schemaTooNew(current);
  if (current < READABLE_FROM) {
    throw new StoreUnavailableError(
      `control-plane schema is at version ${current}, expected ${SCHEMA_VERSION}; open it writable once to migrate`,
    );
  }
}

/** Whether the store's migrations stop at exactly this code's step, read without a lock. */
function isCurrent(db: Database): boolean {
  const table = db
    .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get() as number;
  return table > 0 && appliedVersion(db) === SCHEMA_VERSION;
}

function appliedVersion(db: Database): number {
  const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get() as
    | { version: number | null }
    | undefined;
  return row?.version ?? 0;
}

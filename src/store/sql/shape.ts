import {
  CLOCK_COLUMNS,
  columnNames,
  INVOCATION_COLUMNS,
  SCHEDULER_COLUMNS,
  TOOL_ACTION_COLUMNS,
} from "./columns.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { CHAIN_COLUMNS, DECISION_COLUMNS } from "./records.js";
import { PACING_DEVIATION_COLUMNS, SERVICE_COLUMNS } from "./services.js";

/**
 * What a store's schema holds at `SCHEMA_VERSION`: each table's columns, its triggers and (PostgreSQL)
 * its functions. A store checks it on open, so a table, column, trigger or function dropped or renamed
 * outside raes-ts is named at once (`store.schema-damaged`), rather than read as an empty table or an
 * undefined cell later. test/store/sql/shape.test.ts proves both constants against freshly migrated stores.
 */
export interface SchemaShape {
  /** Each table and the columns raes-ts reads or writes in it (extra columns are left alone). */
  readonly tables: Readonly<Record<string, readonly string[]>>;
  /** Triggers that enforce what the store relies on (v3 budget events, resource pool versions). */
  readonly triggers: readonly string[];
  /** Functions the store's statements and triggers call. */
  readonly functions: readonly string[];
}

/** What a schema was found to hold: `table.column` names, trigger names and function names. */
export interface FoundShape {
  readonly columns: Iterable<string>;
  /** Triggers that fire (PostgreSQL can disable one: it is then in `disabledTriggers`). */
  readonly triggers: Iterable<string>;
  readonly disabledTriggers?: Iterable<string>;
  readonly functions: Iterable<string>;
}

/**
 * The tables that, all there without `schema_migrations`, mark a control plane that lost its
 * migrations table (one of them alone may be anyone's).
 */
export const CONTROL_PLANE_TABLES = ["invocations", "tool_actions", "schedulers"] as const;

/** The tables both SQL stores hold, with the same columns (each table's own constant, where it has one). */
const SHARED_TABLES: Record<string, readonly string[]> = {
  budget_events: [
    "sequence",
    "participant_address",
    "policy_address",
    "seq",
    "transition",
    "operation_id",
    "tick",
    "segment",
    "generation",
    "payload",
  ],
  clocks: columnNames(CLOCK_COLUMNS),
  history_chains: CHAIN_COLUMNS,
  history_events: [
    "sequence",
    "participant_address",
    "episode_id",
    "action_instance_id",
    "body",
    "chain_digest",
  ],
  leases: ["participant_address", "owner_id", "token", "expires_at"],
  operator_chain: ["id", "head_digest", "head_sequence", "decisions"],
  operator_decisions: DECISION_COLUMNS,
  pacing_deviations: PACING_DEVIATION_COLUMNS,
  participant_services: SERVICE_COLUMNS,
  resource_pools: ["pool_key", "version"],
  runtime_processes: ["owner_id", "expires_at"],
  schema_migrations: ["version", "name", "applied_at"],
  tool_actions: columnNames(TOOL_ACTION_COLUMNS),
};

const INVOCATIONS = columnNames(INVOCATION_COLUMNS);
const SCHEDULERS = columnNames(SCHEDULER_COLUMNS);

/** The triggers both SQL stores hold on `schedulers`. */
const TRIGGERS = ["schedulers_budget_event", "schedulers_resource_hold"];

/** The SQLite store's schema. */
export const SQLITE_SHAPE: SchemaShape = {
  tables: { ...SHARED_TABLES, invocations: INVOCATIONS, schedulers: SCHEDULERS },
  triggers: TRIGGERS,
  functions: [],
};

/** The PostgreSQL store's schema: its commit order columns, the history head and its functions. */
export const POSTGRES_SHAPE: SchemaShape = {
  tables: {
    ...SHARED_TABLES,
    history_head: ["singleton", "last_sequence"],
    invocations: [...INVOCATIONS, "opened_order"],
    schedulers: [...SCHEDULERS, "saved_order"],
  },
  triggers: TRIGGERS,
  functions: ["raes_budget_event", "raes_chain_digests", "raes_resource_hold"],
};

/** The most gaps a message names; the rest are counted. */
const GAPS_NAMED = 8;

/**
 * What `found` lacks of `expected`, in words (`table tool_actions`, `column invocations.state`,
 * `trigger schedulers_budget_event`, `trigger … (disabled)`, `function raes_chain_digests`), or an
 * empty list when nothing. `writes` false (a read-only open) leaves out the triggers and functions:
 * only writes use them, and a store they are missing from is still read as it is.
 */
export function shapeGaps(expected: SchemaShape, found: FoundShape, writes = true): string[] {
  const columns = new Set(found.columns);
  const tables = new Set([...columns].map((c) => c.slice(0, c.indexOf("."))));
  const triggers = new Set(found.triggers);
  const disabled = new Set(found.disabledTriggers ?? []);
  const functions = new Set(found.functions);
  const gaps: string[] = [];
  for (const [table, names] of Object.entries(expected.tables)) {
    if (!tables.has(table)) gaps.push(`table ${table}`);
    else for (const name of names) if (!columns.has(`${table}.${name}`)) gaps.push(`column ${table}.${name}`);
  }
  if (!writes) return gaps;
  for (const name of expected.triggers)
    if (disabled.has(name)) gaps.push(`trigger ${name} (disabled)`);
    else if (!triggers.has(name)) gaps.push(`trigger ${name}`);
  for (const name of expected.functions) if (!functions.has(name)) gaps.push(`function ${name}`);
  return gaps;
}

/** The words a damaged store's message gives for its gaps: the first few, then how many more. */
export function describeGaps(gaps: readonly string[]): string {
  const named = gaps.slice(0, GAPS_NAMED).join(", ");
  const more = gaps.length > GAPS_NAMED ? ` and ${gaps.length - GAPS_NAMED} more` : "";
  return `its schema (step ${SCHEMA_VERSION}) lacks ${named}${more}`;
}

import pg from "pg";
import { codeOf } from "../../records/index.js";
import { DelegatingStore } from "../delegating.js";
import { StoreMissingError, StoreNotAStoreError, StoreUnavailableError, schemaDamaged } from "../errors.js";
import { type DriverFailure, isSystemUnavailable, MIGRATIONS_LOST, storeError } from "../sql/index.js";
import { PostgresLeases } from "./leases.js";
import { PostgresReads } from "./reads.js";
import {
  ALL_TABLES,
  controlPlaneTables,
  migrate,
  type ReadTables,
  readableTables,
  SCHEMA_VERSION,
  schemaDamage,
  schemaVersion,
} from "./schema.js";
import { type Queryable, StickyPool } from "./sticky.js";
import { PostgresWrites } from "./writes.js";

/** Options for the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Schema holding the tables (created if missing); default: the server's search_path. */
  readonly schema?: string;
  /** Server-side limit per statement; a write that hits it rolls back and fails. Default 10000; 0: none. */
  readonly statementTimeoutMs?: number;
  /** How long opening a connection may take. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Connections in the pool. Default 10. */
  readonly poolSize?: number;
  /** When false, the schema and its tables must exist; otherwise `StoreMissingError` and nothing is created. */
  readonly create?: boolean;
  /**
   * Read the schema as it is, never creating or migrating it: every transaction of the session is
   * read-only (the server refuses any write, `StoreUnavailableError`), and an older schema is read
   * without the tables of later steps (`raes verify --store`). Implies `create: false`.
   */
  readonly readOnly?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8_OID = 20;

/** A control plane shared by several runtime processes on several hosts, through one pooled database. */
export class PostgresControlPlaneStore extends DelegatingStore {
  readonly #pool: pg.Pool;
  readonly #db: StickyPool;

  private constructor(url: string, pool: pg.Pool, tables: ReadTables, db = new StickyPool(pool)) {
    super(url, {
      reads: new PostgresReads(db, tables),
      writes: new PostgresWrites(db),
      leases: new PostgresLeases(db),
      error: (error) => postgresError(url, error),
      snapshot: (work) => inSnapshot(db, (client) => work(new PostgresReads(client, tables))),
    });
    this.#pool = pool;
    this.#db = db;
  }

  /** Connects, creates the schema if asked and missing, and migrates; `StoreUnavailableError` when the server is down. */
  static async open(
    url: string,
    connectionString: string,
    options: PostgresStoreOptions = {},
  ): Promise<PostgresControlPlaneStore> {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new Error(`schema ${JSON.stringify(schema)} is not a lowercase SQL identifier`);
    }
    const statementMs = options.statementTimeoutMs ?? 10_000;
    // The store never waits between two statements of its own transactions: a statement timeout is ample.
    const readOnly = options.readOnly === true;
    const server = withSearchPath(connectionString, schema, {
      statementMs,
      idleMs: Math.max(statementMs, 10_000),
      readOnly,
    });
    const pool = new pg.Pool({
      connectionString: server.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      ...clientTimeout(statementMs),
      keepAlive: true,
      options: server.options,
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection the server drops is removed by the pool; the next query reconnects.
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect().catch((error: unknown) => {
        // A database that does not exist (SQLSTATE 3D000) holds no store; raes run does not create databases.
        if ((options.create === false || readOnly) && codeOf(error) === "3D000")
          throw new StoreMissingError(`no store at ${redact(url)} (${describeError(error)})`);
        throw error;
      });
      let failure: unknown;
      let tables: ReadTables = ALL_TABLES;
      try {
        // Before anything is read or migrated: a connection without the store's settings touches nothing.
        await assertSessionSettings(client, schema);
        const found = await controlPlaneTables(client, schema);
        if (found.foreign)
          throw new StoreNotAStoreError(
            `${redact(url)} is not a control-plane store: its schema_migrations table is another tool's (it has no name and applied_at columns); give raes-ts a schema of its own, e.g. ?schema=raes`,
          );
        if (!found.migrated) {
          if (found.marked) throw schemaDamaged(redact(url), MIGRATIONS_LOST);
          if (options.create === false || readOnly)
            throw new StoreMissingError(
              `no store at ${redact(url)} (${schema === undefined ? "no control-plane tables on the search_path" : `schema ${schema} has no control-plane tables`})`,
            );
        }
        if (readOnly) tables = await readableTables(client);
        // A schema at this code's step has nothing to migrate: one read instead of migrate's seven
        // statements (its lock among them); a concurrent migration's uncommitted step reads as older.
        else if (!found.migrated || (await schemaVersion(client)) !== SCHEMA_VERSION)
          await migrate(client, schema, redact(url));
        const damage = await schemaDamage(client, !readOnly);
        if (damage !== undefined) throw schemaDamaged(redact(url), damage);
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        client.release(failure instanceof Error ? failure : undefined);
      }
      return new PostgresControlPlaneStore(url, pool, tables);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw postgresError(url, error);
    }
  }

  async close(): Promise<void> {
    this.#db.release();
    if (!this.#pool.ended) await this.#pool.end();
  }
}

/**
 * Runs `work` on one pooled connection inside one `REPEATABLE READ READ ONLY` transaction: every
 * statement sees the snapshot its first statement took, whatever others commit meanwhile. Its
 * statements are unnamed: the connection may have prepared the store's own under the same names.
 */
async function inSnapshot<T>(pool: Queryable, work: (db: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const result = await work({
      query: (config) =>
        client.query({ text: config.text, ...(config.values ? { values: config.values } : {}) }),
      connect: () => Promise.reject(new Error("a snapshot reads on its own connection only")),
    });
    await client.query("COMMIT");
    return result;
  } catch (error) {
    failure = error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release(failure instanceof Error ? failure : undefined);
  }
}

/**
 * Refuses a connection that lost the store's startup options (a pooler that drops them): its
 * statements must run at read committed and, with a schema, on that schema's tables.
 */
export async function assertSessionSettings(
  client: pg.PoolClient,
  schema: string | undefined,
): Promise<void> {
  const { rows } = await client.query<{ level: string; path: string }>(
    "SELECT current_setting('transaction_isolation') AS level, current_setting('search_path') AS path",
  );
  const { level, path } = rows[0] ?? { level: "unknown", path: "unknown" };
  if (level !== "read committed") {
    throw new StoreUnavailableError(
      `the server runs this connection's statements at ${level} isolation; raes-ts needs read committed (its startup option default_transaction_isolation was dropped or overridden)`,
    );
  }
  if (schema !== undefined && path !== schema) {
    throw new StoreUnavailableError(
      `the connection's search_path is ${path}, not schema ${schema} (its startup option was dropped or overridden): its statements would reach other tables`,
    );
  }
}

/**
 * Every statement is prepared once per connection and mostly keyed by a primary key. PostgreSQL
 * plans a prepared statement's first five runs for their values and then keeps a generic plan only
 * if it looks no dearer: a connection that prepared while the tables were empty could keep
 * replanning each fenced write for ever (~150 µs per statement here, measured), one connection in
 * four or so. A generic plan is chosen at once, so every connection runs the same plan.
 */
const SESSION_SETTINGS = [
  "-c plan_cache_mode=force_generic_plan",
  // Fencing and the clock's compare-and-swap rely on each statement seeing what committed before
  // it: a role or server default of repeatable read or serializable must not apply here.
  "-c default_transaction_isolation=read\\ committed",
  // The commit statement's generic plan is estimated at millions of rows (its recordsets and
  // arrays have no size until run), which crosses the JIT thresholds: compiling it took about
  // 600 ms per commit of a few rows, measured. These statements touch a handful of rows each.
  "-c jit=off",
].join(" ");

/**
 * The client's limit for a server statement limit of `ms` (0: none). A dead network never answers,
 * so the client gives up a little after the server would have; with no server limit, it never does.
 */
export function clientTimeout(ms: number): { query_timeout?: number } {
  return ms === 0 ? {} : { query_timeout: ms + 5_000 };
}

/** The server's limits on a store session: a statement (0: none), and a transaction left idle. */
export interface SessionLimits {
  readonly statementMs: number;
  readonly idleMs: number;
  /** Every transaction read-only (`default_transaction_read_only`): the server refuses any write. */
  readonly readOnly?: boolean;
}

/**
 * Startup options: the URL's own `options`, then the schema's search_path, the session settings and
 * the `limits`, which override the URL's, the role's and the server's (a limit of 0 too: the driver
 * sends no statement_timeout of 0). A transaction of this store left idle `idleMs` is ended by the
 * server: a process that died or lost its network between two statements of a transaction would
 * otherwise keep its locks (the lease row among them, so no takeover) until TCP keepalive notices.
 */
export function withSearchPath(
  connectionString: string,
  schema: string | undefined,
  limits?: SessionLimits,
): { connectionString: string; options: string } {
  const url = new URL(connectionString);
  const own = url.searchParams.get("options");
  url.searchParams.delete("options");
  const settings = [
    own,
    schema === undefined ? undefined : `-c search_path=${schema}`,
    SESSION_SETTINGS,
    limits && `-c statement_timeout=${limits.statementMs}`,
    limits && `-c idle_in_transaction_session_timeout=${limits.idleMs}`,
    limits?.readOnly === true ? "-c default_transaction_read_only=on" : undefined,
  ];
  return { connectionString: url.toString(), options: settings.filter(Boolean).join(" ") };
}

/**
 * SQLSTATE classes of a server that cannot serve now: 08 connection, 53 insufficient resources,
 * 57 operator intervention (shutdown, statement timeout), 58 system and I/O errors, 40 a rolled
 * back transaction; also 55P03 (lock not available), 25006 (a read-only server) and 42501 (a role
 * without the privileges the store needs: it cannot write, as a SQLite file it may not write).
 */
const UNAVAILABLE_CLASSES = new Set(["08", "53", "57", "58", "40"]);
const UNAVAILABLE_STATES = new Set(["55P03", "25006", "42501"]);
/** What node-postgres says, without a code, when a connection dies or never comes. */
const CLIENT_UNAVAILABLE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|not queryable/;

/**
 * SQLSTATEs of a statement that names what the schema lacks: an undefined table or column. Every
 * statement the store sends names only what its migrations create (test/store/sql/shape.test.ts).
 */
const DAMAGED_STATES = new Set(["42P01", "42703"]);
/** Undefined function (42883) is damage only for the store's own functions: it also means a mistyped operator. */
const OWN_FUNCTION_MISSING = /^function raes_\w+\(/;

/**
 * Class 23 (integrity) is a conflict; a connection or I/O failure is unavailable; a missing table,
 * column or function is a damaged schema; the rest is a bug.
 */
function classifyPostgresFailure(failure: unknown): DriverFailure {
  if (isSystemUnavailable(failure)) return "unavailable";
  const sqlState = codeOf(failure);
  if (sqlState !== undefined && /^[0-9A-Z]{5}$/.test(sqlState)) {
    if (sqlState.startsWith("23")) return "conflict";
    if (DAMAGED_STATES.has(sqlState)) return "damaged";
    if (sqlState === "42883" && failure instanceof Error && OWN_FUNCTION_MISSING.test(failure.message))
      return "damaged";
    if (UNAVAILABLE_CLASSES.has(sqlState.slice(0, 2)) || UNAVAILABLE_STATES.has(sqlState))
      return "unavailable";
    return "bug";
  }
  return failure instanceof Error && CLIENT_UNAVAILABLE.test(failure.message) ? "unavailable" : "bug";
}

/** The store's error for a driver failure; the URL is shown without its password. */
function postgresError(url: string, error: unknown): Error {
  return storeError(redact(url), error, classifyPostgresFailure);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}

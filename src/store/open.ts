import { isPackageMissing, readStoreUrl } from "../records/index.js";
import { StoreDriverMissingError, StoreErrorCode, StoreMissingError } from "./errors.js";
import { MemoryControlPlaneStore } from "./memory/index.js";
import type { ControlPlaneStore } from "./types.js";

/** Options of `openControlPlaneStore`; each applies only to the stores named. */
export interface OpenStoreOptions {
  /** memory, sqlite: milliseconds since the epoch for lease expiry (PostgreSQL uses the database clock). */
  readonly now?: () => number;
  /** sqlite: how long a write waits for another connection's lock. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * sqlite: the most the connection's page cache may hold, in MiB, read-only or not; it fills only as
   * pages are used. Default 128 (docs/guide/stores.md says when it helps); a lower cap for a
   * memory-bound container.
   */
  readonly cacheMiB?: number;
  /**
   * sqlite, postgres: open an existing store without write access, never migrating it; every write
   * fails with `StoreUnavailableError` (PostgreSQL: every transaction of the session is read-only).
   */
  readonly readOnly?: boolean;
  /**
   * sqlite, postgres: when false, the store must already exist (a SQLite file with the schema; a PostgreSQL
   * schema with the tables); otherwise `StoreMissingError` and nothing is created. Default true.
   */
  readonly create?: boolean;
  /**
   * sqlite: when false, every history row is prepared on the committing thread. By default a commit
   * of 2048 closes or more (a large recovery's) has a worker thread pack their events' bodies and
   * link their chain digests while it writes; the rows are the same either way.
   */
  readonly prepareEventsApart?: boolean;
  /** postgres: server-side statement limit; a write that hits it fails with `StoreUnavailableError`. Default 10000; 0: none. */
  readonly statementTimeoutMs?: number;
  /** postgres: how long connecting may take. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** postgres: connections in the pool. Default 10. */
  readonly poolSize?: number;
}

/** A store URL that names no known store, or names one badly. */
export class StoreUrlError extends Error {
  readonly code = StoreErrorCode.url_invalid;
  constructor(message: string) {
    super(message);
    this.name = "StoreUrlError";
  }
}

/**
 * Opens a control-plane store: `memory:`, `sqlite:PATH` (relative to the cwd) or
 * `postgres://…` / `postgresql://…` (optional `?schema=NAME`, created if missing), as
 * `readStoreUrl` reads them. A `memory:` store is always new: with `create: false` or `readOnly`
 * it is `StoreMissingError`. PostgreSQL's driver `pg` is an optional package: without it a
 * `postgres://` URL fails with `StoreDriverMissingError` (`store.driver-missing`) and opens nothing.
 */
export async function openControlPlaneStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<ControlPlaneStore> {
  checkOptions(options);
  const read = readStoreUrl(url);
  if (!read.ok) throw new StoreUrlError(read.problem);
  const { location } = read;
  if (location.kind === "memory") {
    // A memory: store lives only in the process that made it: one that must already exist never does
    // (an audit of it would "verify" an empty history, a listing find nothing, and say so with exit 0).
    if (options.create === false || options.readOnly === true)
      throw new StoreMissingError(
        "no store at memory: (a memory: store lives only inside the process that made it; name a sqlite: or postgres:// store)",
      );
    return new MemoryControlPlaneStore(options.now === undefined ? {} : { now: options.now });
  }
  if (location.kind === "sqlite") {
    const { SqliteControlPlaneStore } = await import("./sqlite/index.js");
    return SqliteControlPlaneStore.open(url, location.path, {
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      ...(options.cacheMiB === undefined ? {} : { cacheMiB: options.cacheMiB }),
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.create === undefined ? {} : { create: options.create }),
      ...(options.prepareEventsApart === undefined ? {} : { prepareEventsApart: options.prepareEventsApart }),
    });
  }
  const { PostgresControlPlaneStore } = await importPostgres();
  return PostgresControlPlaneStore.open(url, location.connectionString, {
    ...(location.schema === undefined ? {} : { schema: location.schema }),
    ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options.create === undefined ? {} : { create: options.create }),
    ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
  });
}

/**
 * The PostgreSQL store, imported only for a `postgres://` URL: its driver `pg` is an optional peer
 * dependency (`docs/guide/stores.md`), so a SQLite or memory user need not install it.
 */
async function importPostgres(): Promise<typeof import("./postgres/index.js")> {
  try {
    return await import("./postgres/index.js");
  } catch (error) {
    if (!isPackageMissing(error, "pg")) throw error;
    throw new StoreDriverMissingError(
      'a postgres:// store needs the PostgreSQL driver pg, an optional package that is not installed: run npm install "pg@^8.23.1"',
      "pg",
    );
  }
}

/** The largest timer Node keeps (a longer one fires at once) and the server's largest timeout. */
const MAX_MS = 2 ** 31 - 1;

/** The whole numbers each numeric option may be: the statement limit leaves room for the client's 5 s more. */
const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  busyTimeoutMs: [0, MAX_MS],
  cacheMiB: [1, 65_536],
  statementTimeoutMs: [0, MAX_MS - 5_000],
  connectTimeoutMs: [0, MAX_MS],
  poolSize: [1, 10_000],
};

/** Refuses a numeric option that is not a whole number in its range, before anything opens. */
function checkOptions(options: OpenStoreOptions): void {
  for (const [name, [least, most]] of Object.entries(RANGES)) {
    const value = (options as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least || value > most) {
      const got = typeof value === "number" ? String(value) : `${typeof value} ${String(value)}`;
      throw new RangeError(
        `store option ${name} must be a whole number from ${least} to ${most}, got ${got}`,
      );
    }
  }
}

import { StoreErrorCode } from "./errors.js";
import { MemoryControlPlaneStore } from "./memory/index.js";
import type { ControlPlaneStore } from "./types.js";

/** Options of `openControlPlaneStore`; each applies only to the stores named. */
export interface OpenStoreOptions {
  /** memory, sqlite: milliseconds since the epoch for lease expiry (PostgreSQL uses the database clock). */
  readonly now?: () => number;
  /** sqlite: how long a write waits for another connection's lock. Default 5000. */
  readonly busyTimeoutMs?: number;
  /** sqlite: open an existing file without write access; every write fails with `StoreUnavailableError`. */
  readonly readOnly?: boolean;
  /**
   * sqlite, postgres: when false, the store must already exist (a SQLite file with the schema; a PostgreSQL
   * schema with the tables); otherwise `StoreMissingError` and nothing is created. Default true.
   */
  readonly create?: boolean;
  /** postgres: server-side statement limit; a write that hits it fails with `StoreUnavailableError`. Default 10000; 0: none. */
  readonly statementTimeoutMs?: number;
  /** postgres: how long connecting may take. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** postgres: connections in the pool. Default 10. */
  readonly poolSize?: number;
}

/** The store URL used when none is given. */
export const DEFAULT_STORE_URL = "sqlite:.raes/control-plane.db";

/** A store URL that names no known store, or names one badly. */
export class StoreUrlError extends Error {
  readonly code = StoreErrorCode.url_invalid;
  constructor(message: string) {
    super(message);
    this.name = "StoreUrlError";
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens a control-plane store: `memory:`, `sqlite:PATH` (relative to the cwd) or
 * `postgres://…` / `postgresql://…` (optional `?schema=NAME`, created if missing).
 */
export async function openControlPlaneStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<ControlPlaneStore> {
  checkOptions(options);
  if (url === "memory:") {
    return new MemoryControlPlaneStore(options.now === undefined ? {} : { now: options.now });
  }
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path === "") throw new StoreUrlError(`store URL ${url} has no file path (e.g. ${DEFAULT_STORE_URL})`);
    const { SqliteControlPlaneStore } = await import("./sqlite/index.js");
    return SqliteControlPlaneStore.open(url, path, {
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.create === undefined ? {} : { create: options.create }),
    });
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const { connectionString, schema } = parsePostgresUrl(url);
    const { PostgresControlPlaneStore } = await import("./postgres/index.js");
    return PostgresControlPlaneStore.open(url, connectionString, {
      ...(schema === undefined ? {} : { schema }),
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.create === undefined ? {} : { create: options.create }),
    });
  }
  throw new StoreUrlError(
    `store URL ${JSON.stringify(url)} is not memory:, sqlite:PATH, postgres://… or postgresql://…`,
  );
}

/** The largest timer Node keeps (a longer one fires at once) and the server's largest timeout. */
const MAX_MS = 2 ** 31 - 1;

/** The whole numbers each numeric option may be: the statement limit leaves room for the client's 5 s more. */
const RANGES: Readonly<Record<string, readonly [number, number]>> = {
  busyTimeoutMs: [0, MAX_MS],
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

/** Splits the `schema` parameter off a PostgreSQL URL; the rest goes to the driver unchanged. */
function parsePostgresUrl(url: string): { connectionString: string; schema?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(`store URL is not a valid PostgreSQL URL`);
  }
  // The store appends its own startup options after these: a trailing unpaired backslash would
  // escape the space between them and swallow the store's first option into the URL's last value.
  const options = parsed.searchParams.get("options");
  if (options !== null && /(^|[^\\])(\\\\)*\\$/.test(options)) {
    throw new StoreUrlError(
      `the URL's options ${JSON.stringify(options)} end in an unpaired backslash (write \\\\ for a backslash)`,
    );
  }
  const schema = parsed.searchParams.get("schema");
  if (schema === null) return { connectionString: url };
  if (!SCHEMA_NAME.test(schema)) {
    throw new StoreUrlError(
      `schema ${JSON.stringify(schema)} must be a lowercase SQL identifier ([a-z_][a-z0-9_]*)`,
    );
  }
  parsed.searchParams.delete("schema");
  return { connectionString: parsed.toString(), schema };
}

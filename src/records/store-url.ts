/**
 * The syntax of control-plane store URLs, read in one place: the store opens by it and the CLI checks
 * `--store` by it. It lives with the records, not the store, so that a command's `--help` can show and
 * check a store URL without loading any store module; the store exports it through its door.
 */

/** The store URL used when none is given. */
export const DEFAULT_STORE_URL = "sqlite:.raes/control-plane.db";

/** The in-memory store's URL. */
export const MEMORY_STORE_URL = "memory:";

/** The store URLs there are, as messages and help texts name them. */
export const STORE_URL_FORMS = "memory:, sqlite:PATH, postgres://… or postgresql://…";

const SQLITE = "sqlite:";
const POSTGRES = /^postgres(ql)?:\/\//;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Where a store URL points, and what its store is opened with. */
export type StoreLocation =
  | { readonly kind: "memory" }
  /** `path` is as written: relative to the working directory unless absolute. */
  | { readonly kind: "sqlite"; readonly path: string }
  /** `connectionString` is the URL less its `schema` parameter, for the driver unchanged otherwise. */
  | { readonly kind: "postgres"; readonly connectionString: string; readonly schema?: string };

/** A store URL as read: where it points, or why it names no store (a message naming the URL's fault). */
export type StoreUrlReading =
  | { readonly ok: true; readonly location: StoreLocation }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads a store URL: `memory:`, `sqlite:PATH` or `postgres://…` / `postgresql://…` (optional
 * `?schema=NAME`, a lowercase SQL identifier). Nothing is opened or looked at on disk.
 */
export function readStoreUrl(url: string): StoreUrlReading {
  if (url === MEMORY_STORE_URL) return { ok: true, location: { kind: "memory" } };
  if (url.startsWith(SQLITE)) {
    const path = url.slice(SQLITE.length);
    if (path === "")
      return { ok: false, problem: `store URL ${url} has no file path (e.g. ${DEFAULT_STORE_URL})` };
    return { ok: true, location: { kind: "sqlite", path } };
  }
  if (POSTGRES.test(url)) return readPostgresUrl(url);
  return { ok: false, problem: `store URL ${JSON.stringify(url)} is not ${STORE_URL_FORMS}` };
}

/** True when the URL names a PostgreSQL store (whether or not it reads well). */
export function isPostgresStoreUrl(url: string): boolean {
  return POSTGRES.test(url);
}

/** The SQLite file a store URL names, or undefined when it names another store. */
export function sqliteStorePath(url: string): string | undefined {
  return url.startsWith(SQLITE) ? url.slice(SQLITE.length) : undefined;
}

/** The store URL of a SQLite file. */
export function sqliteStoreUrl(path: string): string {
  return `${SQLITE}${path}`;
}

/** Splits the `schema` parameter off a PostgreSQL URL; the rest goes to the driver unchanged. */
function readPostgresUrl(url: string): StoreUrlReading {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, problem: "store URL is not a valid PostgreSQL URL" };
  }
  // The store appends its own startup options after these: a trailing unpaired backslash would
  // escape the space between them and swallow the store's first option into the URL's last value.
  const options = parsed.searchParams.get("options");
  if (options !== null && /(^|[^\\])(\\\\)*\\$/.test(options)) {
    return {
      ok: false,
      problem: `the URL's options ${JSON.stringify(options)} end in an unpaired backslash (write \\\\ for a backslash)`,
    };
  }
  const schema = parsed.searchParams.get("schema");
  if (schema === null) return { ok: true, location: { kind: "postgres", connectionString: url } };
  if (!SCHEMA_NAME.test(schema)) {
    return {
      ok: false,
      problem: `schema ${JSON.stringify(schema)} must be a lowercase SQL identifier ([a-z_][a-z0-9_]*)`,
    };
  }
  parsed.searchParams.delete("schema");
  return { ok: true, location: { kind: "postgres", connectionString: parsed.toString(), schema } };
}

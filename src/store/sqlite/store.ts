import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { DelegatingStore } from "../delegating.js";
import { StoreMissingError } from "../errors.js";
import { storeError } from "../sql/errors.js";
import { SqliteLeases } from "./leases.js";
import { SqliteReads } from "./reads.js";
import { assertSchemaCurrent, migrate } from "./schema.js";
import { SqliteWrites } from "./writes.js";

/** Options for the SQLite store. */
export interface SqliteStoreOptions {
  /** Milliseconds since the epoch; lease expiry follows it. */
  readonly now?: () => number;
  /** How long a write waits for another connection's lock before failing; default 5000. */
  readonly busyTimeoutMs?: number;
  /** Opens an existing file without write access (as when it has no write permission bit): reads work, writes are refused. */
  readonly readOnly?: boolean;
  /** When false, the file must exist with the schema; otherwise `StoreMissingError` and nothing is created. */
  readonly create?: boolean;
}

/** The default control plane: one SQLite file in WAL mode, shareable by several processes. */
export class SqliteControlPlaneStore extends DelegatingStore {
  readonly #db: Database.Database;

  private constructor(url: string, db: Database.Database, now: () => number) {
    const leases = new SqliteLeases(db, now);
    super(url, {
      reads: new SqliteReads(db),
      writes: new SqliteWrites(db, leases),
      leases,
      error: (error) => sqliteError(url, error),
    });
    this.#db = db;
  }

  /** Opens (creating and migrating when writable) the database file at `path`, relative to the cwd. */
  static open(url: string, path: string, options: SqliteStoreOptions = {}): SqliteControlPlaneStore {
    const file = resolve(path);
    let db: Database.Database | undefined;
    try {
      const readOnly = options.readOnly === true || isWriteProtected(file);
      const mustExist = readOnly || options.create === false;
      if (options.create === false && !existsSync(file))
        throw new StoreMissingError(`no store at ${url} (${file} does not exist)`);
      if (!mustExist) mkdirSync(dirname(file), { recursive: true });
      db = new Database(file, {
        readonly: readOnly,
        fileMustExist: mustExist,
        timeout: options.busyTimeoutMs ?? 5000,
      });
      if (options.create === false && !hasSchema(db))
        throw new StoreMissingError(`no store at ${url} (${file} has no control-plane tables)`);
      if (readOnly) {
        assertSchemaCurrent(db);
      } else {
        db.pragma("journal_mode = WAL");
        // FULL fsyncs the WAL on every commit: a dispatch receipt must survive power loss,
        // or a restarted runtime could miss that a tool may already have run.
        db.pragma("synchronous = FULL");
        db.pragma("foreign_keys = ON");
        migrate(db);
      }
      return new SqliteControlPlaneStore(url, db, options.now ?? Date.now);
    } catch (error) {
      db?.close();
      throw sqliteError(url, error);
    }
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/**
 * A file with no write permission bit opens read-only even for root (whom the OS would let write),
 * so `chmod a-w` reliably freezes a control plane.
 */
function isWriteProtected(file: string): boolean {
  return existsSync(file) && (statSync(file).mode & 0o222) === 0;
}

/** Whether the file holds a control plane (its migrations table), so an empty or foreign file is no store. */
function hasSchema(db: Database.Database): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !==
    undefined
  );
}

/** A constraint failure is a conflict. */
function sqliteError(url: string, error: unknown): Error {
  return storeError(
    url,
    error,
    (failure) => failure instanceof Database.SqliteError && failure.code.startsWith("SQLITE_CONSTRAINT"),
  );
}

import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { DelegatingStore, type StoreLeases, type StoreReads } from "../delegating.js";
import { StoreMissingError, StoreNotAStoreError, StoreUnavailableError, schemaDamaged } from "../errors.js";
import { type DriverFailure, isSystemUnavailable, storeError } from "../sql/index.js";
import { GroupCommit } from "./group-commit.js";
import { SqliteLeases } from "./leases.js";
import { SqliteReads } from "./reads.js";
import {
  assertSchemaCurrent,
  hasBudgetEvents,
  hasChains,
  hasDecisions,
  hasPacingDeviations,
  hasPools,
  hasServices,
  lostMigrations,
  migrate,
  schemaDamage,
} from "./schema.js";
import { SqliteWrites } from "./writes.js";

/**
 * The connection's default page cache cap, in MiB (better-sqlite3 builds SQLite with 16 000 KiB).
 * Each invocation writes into about fifteen indexes, most keyed by participant first, so a run of N
 * participants keeps about 15 N index pages hot; with 1 000 participants that outgrows 16 MB, and
 * every invocation then reads pages back through the kernel (docs/benchmarks.md, soak). The cache
 * grows only as pages are used.
 */
const CACHE_MIB = 128;

/** Options for the SQLite store. */
export interface SqliteStoreOptions {
  /** Milliseconds since the epoch; lease expiry follows it. */
  readonly now?: () => number;
  /** How long a write waits for another connection's lock before failing; default 5000. */
  readonly busyTimeoutMs?: number;
  /** The most the page cache may hold, in MiB; default 128. */
  readonly cacheMiB?: number;
  /** Opens an existing file without write access (as when it has no write permission bit): reads work, writes are refused. */
  readonly readOnly?: boolean;
  /** When false, the file must exist with the schema; otherwise `StoreMissingError` and nothing is created. */
  readonly create?: boolean;
  /**
   * When false, every write commits at once in its own transaction; by default writes issued after
   * a commit in the same event-loop turn commit together at the turn's end (group commit).
   */
  readonly groupCommit?: boolean;
  /**
   * When false, every event row is prepared on the committing thread. By default a commit of 2048
   * closes or more (a large recovery's) has a worker thread pack their events' bodies and link their
   * chain digests while it writes; the rows are the same either way.
   */
  readonly prepareEventsApart?: boolean;
}

/** The default control plane: one SQLite file in WAL mode, shareable by several processes. */
export class SqliteControlPlaneStore extends DelegatingStore {
  readonly #db: Database.Database;
  readonly #commits: GroupCommit;
  readonly #writes: SqliteWrites;

  private constructor(
    url: string,
    db: Database.Database,
    now: () => number,
    groupCommit: boolean,
    timeout: number,
    prepareApart: boolean,
  ) {
    const leases = new SqliteLeases(db, now);
    const commits = new GroupCommit(db, groupCommit);
    const writes = new SqliteWrites(db, leases, commits, prepareApart);
    const tables = [
      hasChains(db),
      hasDecisions(db),
      hasServices(db),
      hasPools(db),
      hasPacingDeviations(db),
      hasBudgetEvents(db),
    ] as const;
    super(url, {
      // A read or a lease first commits the queued writes, so it sees every write issued before it.
      reads: flushingFirst<StoreReads>(new SqliteReads(db, ...tables), commits),
      writes,
      leases: flushingFirst<StoreLeases>(leases, commits),
      error: (error) => sqliteError(url, error),
      snapshot: (work) => {
        commits.beforeUse();
        return inSnapshot(db.name, timeout, (snapshot) => work(new SqliteReads(snapshot, ...tables)));
      },
    });
    this.#db = db;
    this.#commits = commits;
    this.#writes = writes;
  }

  /** History events whose rows a worker thread prepared (SqliteStoreOptions.prepareEventsApart). */
  get eventsPreparedApart(): number {
    return this.#writes.preparedApart;
  }

  /** Write transactions this store committed (a group commit counts once); lease writes are not counted. */
  get commits(): number {
    return this.#commits.commits;
  }

  /** Opens (creating and migrating when writable) the database file at `path`, relative to the cwd. */
  static open(url: string, path: string, options: SqliteStoreOptions = {}): SqliteControlPlaneStore {
    const file = resolve(path);
    const timeout = options.busyTimeoutMs ?? 5000;
    let db: Database.Database | undefined;
    try {
      const readOnly = options.readOnly === true || isWriteProtected(file);
      if (options.create === false && !existsSync(file))
        throw new StoreMissingError(`no store at ${url} (${file} does not exist)`);
      if (!readOnly && options.create !== false) mkdirSync(dirname(file), { recursive: true });
      db = openFile(url, file, readOnly, timeout);
      const lost = lostMigrations(db);
      if (lost !== undefined) throw schemaDamaged(url, lost);
      if (options.create === false && !hasSchema(db))
        throw new StoreMissingError(`no store at ${url} (${file} has no control-plane tables)`);
      db.pragma(`cache_size = -${1024 * (options.cacheMiB ?? CACHE_MIB)}`);
      if (readOnly) {
        assertSchemaCurrent(db);
      } else {
        useWal(db, timeout);
        // FULL fsyncs the WAL on every commit: a dispatch receipt must survive power loss,
        // or a restarted runtime could miss that a tool may already have run. Only a settlement
        // commits without fsync (SqliteWrites.updateToolAction says why that is safe).
        db.pragma("synchronous = FULL");
        db.pragma("foreign_keys = ON");
        migrate(db, url);
      }
      const damage = schemaDamage(db, !readOnly);
      if (damage !== undefined) throw schemaDamaged(url, damage);
      return new SqliteControlPlaneStore(
        url,
        db,
        options.now ?? Date.now,
        options.groupCommit !== false,
        timeout,
        options.prepareEventsApart !== false,
      );
    } catch (error) {
      db?.close();
      if (isNotADatabase(error))
        throw new StoreNotAStoreError(
          `${url} is not a control-plane store: ${file} is not a SQLite database`,
        );
      throw sqliteError(url, error);
    }
  }

  /** Commits the queued writes (their callers learn the outcome), then closes the file. */
  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#commits.close();
    this.#db.close();
  }
}

/** `part` with each method committing the queued writes (after any leftover rollback) before it runs. */
function flushingFirst<T extends object>(part: T, commits: GroupCommit): T {
  return new Proxy(part, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        commits.beforeUse();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * Runs `work` on a connection of its own inside one read transaction: in WAL mode a reader keeps the
 * snapshot its first read took until it ends, whatever other connections commit meanwhile, and never
 * blocks them. A connection of its own, so the store's writes in this process (group commit) neither
 * join the transaction nor wait on it.
 */
async function inSnapshot<T>(
  file: string,
  timeout: number,
  work: (db: Database.Database) => Promise<T>,
): Promise<T> {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout });
  try {
    db.exec("BEGIN DEFERRED");
    // The snapshot starts at the transaction's first read, not at BEGIN: take it now.
    db.prepare("SELECT count(*) FROM schema_migrations").get();
    return await work(db);
  } finally {
    if (db.inTransaction) db.exec("COMMIT");
    db.close();
  }
}

/** The driver's open fails (even with a TypeError) only when the file or its folder cannot be reached. */
function openFile(url: string, file: string, readOnly: boolean, timeout: number): Database.Database {
  try {
    return new Database(file, { readonly: readOnly, fileMustExist: readOnly, timeout });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StoreUnavailableError(`control-plane store ${url} is unavailable: ${message}`, {
      cause: error,
    });
  }
}

/**
 * Puts the file in WAL mode, waiting up to `timeoutMs` for other processes. WAL is a property of the
 * file, so once any process switched it, reading the mode is all an open does. The switch itself
 * needs the file to itself, and SQLite refuses it at once (`SQLITE_BUSY`, no busy handler) while
 * another connection is writing in rollback mode, as when several processes open a new file
 * together: so it is retried, with growing pauses, until the timeout.
 */
function useWal(db: Database.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      // open() is synchronous, and a store is opened before the process has work to interleave.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(pause, deadline - Date.now()));
    }
  }
}

/** SQLite found a file that is not a database, directly or as the cause of the open's error. */
function isNotADatabase(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause)
    if ((e as { code?: unknown }).code === "SQLITE_NOTADB") return true;
  return false;
}

/**
 * A file with no write permission bit opens read-only even for root (whom the OS would let write),
 * so `chmod a-w` reliably freezes a control plane.
 */
function isWriteProtected(file: string): boolean {
  return existsSync(file) && (statSync(file).mode & 0o222) === 0;
}

/**
 * SQLite result codes of a file that cannot be reached or written now: locked, busy, read-only, full,
 * unopenable, not a database, corrupt, or failed I/O (each with its extended codes).
 */
const SQLITE_UNAVAILABLE =
  /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|FULL|CANTOPEN|NOTADB|CORRUPT|PROTOCOL|PERM|AUTH|NOLFS)(_|$)/;

/**
 * SQLite's words for a statement that names what the schema lacks (a dropped table, a renamed column):
 * `no such table: …` and the like, and an insert's `table … has no column named …`.
 */
const SQLITE_DAMAGED = /^no such (table|column|function|index|trigger)\b|^table \S+ has no column named /;

/**
 * A constraint failure is a conflict; a file or I/O failure is unavailable; a missing table, column
 * or function is a damaged schema; the rest is a bug.
 */
function classifySqliteFailure(failure: unknown): DriverFailure {
  if (isSystemUnavailable(failure)) return "unavailable";
  if (!(failure instanceof Database.SqliteError)) return "bug";
  if (failure.code.startsWith("SQLITE_CONSTRAINT")) return "conflict";
  if (failure.code === "SQLITE_ERROR" && SQLITE_DAMAGED.test(failure.message)) return "damaged";
  return SQLITE_UNAVAILABLE.test(failure.code) ? "unavailable" : "bug";
}

function sqliteError(url: string, error: unknown): Error {
  return storeError(url, error, classifySqliteFailure);
}

/** Whether the file holds a control plane (its migrations table), so an empty or foreign file is no store. */
function hasSchema(db: Database.Database): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !==
    undefined
  );
}

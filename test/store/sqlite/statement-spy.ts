import Database from "better-sqlite3";

/** Counts, and can fail, the runs of one SQL text on every connection prepared while installed. */
export interface StatementSpy {
  /** Runs of the statement so far. */
  runs: number;
  /** Reads of one row (`get`) by the statement so far. */
  reads: number;
  /** When set, the next runs throw it instead of running. */
  failWith: Error | undefined;
  /** Puts `prepare` back. */
  restore(): void;
}

/**
 * Wraps `Database.prototype.prepare` so statements whose text is `sql` are counted and can be made to
 * fail: a COMMIT that meets a full disk or an I/O error, without needing one.
 */
export function spyOnStatement(sql: string): StatementSpy {
  const original = Database.prototype.prepare;
  const spy: StatementSpy = {
    runs: 0,
    reads: 0,
    failWith: undefined,
    restore: () => {
      Database.prototype.prepare = original;
    },
  };
  Database.prototype.prepare = function prepare(this: Database.Database, source: string) {
    const statement = original.call(this, source) as Database.Statement;
    if (source !== sql) return statement;
    const run = statement.run.bind(statement);
    const get = statement.get.bind(statement);
    statement.get = (...args: unknown[]) => {
      spy.reads += 1;
      return get(...(args as []));
    };
    statement.run = (...args: unknown[]) => {
      spy.runs += 1;
      if (spy.failWith !== undefined) throw spy.failWith;
      return run(...(args as []));
    };
    return statement;
  } as typeof original;
  return spy;
}

/** A SQLite I/O failure as the driver reports it. */
export function ioError(): Error {
  return new Database.SqliteError("disk I/O error", "SQLITE_IOERR_WRITE");
}

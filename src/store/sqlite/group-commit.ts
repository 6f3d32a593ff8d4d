import type { Database, Statement } from "better-sqlite3";

/** How a write's commit must reach the disk: `full` fsyncs the WAL; `normal` only orders it. */
export type Durability = "full" | "normal";

/** SQLite's default automatic checkpoint threshold, in WAL pages. */
const AUTOCHECKPOINT_PAGES = 1000;
/** How long a put-off checkpoint waits: past the caller's next few writes (a recovery's, then its scheduling). */
const DEFERRED_CHECKPOINT_MS = 1000;

/** A queued write and its caller's settlement. */
interface Queued {
  readonly work: () => unknown;
  readonly durability: Durability;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit on one SQLite connection. The first write of an event-loop turn commits at once, in
 * its own `BEGIN IMMEDIATE` transaction, as a lone writer expects. Writes that arrive after a commit
 * in the same turn wait for the turn's end (setImmediate) and then commit together in one
 * transaction, each inside its own savepoint, so a write that throws rolls back only itself and
 * rejects only its caller; the one COMMIT (one fsync) then resolves every other caller. Nothing
 * resolves before its commit returned, so an acknowledged write is as durable as a lone one. A write
 * that waited and found no company marks its caller a lone writer, whose next writes in the same run
 * of microtasks commit at once again (a sequential writer waits one turn, not one per write).
 */
export class GroupCommit {
  readonly #db: Database;
  readonly #batching: boolean;
  readonly #begin: Statement<[]>;
  readonly #commit: Statement<[]>;
  readonly #rollback: Statement<[]>;
  readonly #syncNormal: Statement<[]>;
  readonly #syncFull: Statement<[]>;
  readonly #savepoint: Statement<[]>;
  readonly #release: Statement<[]>;
  readonly #rollbackTo: Statement<[]>;
  #queue: Queued[] = [];
  /** The checkpoint a large transaction put off, while it waits (autocheckpoint off until then). */
  #checkpoint: NodeJS.Timeout | undefined;
  #turnEnd: NodeJS.Immediate | undefined;
  /** Set while the caller of a write flushed alone runs on: it writes at once, as a lone writer. */
  #alone = false;
  #commits = 0;

  /** `batching` false commits every write at once, as before group commit (the bench's baseline). */
  constructor(db: Database, batching: boolean) {
    this.#db = db;
    this.#batching = batching;
    this.#begin = db.prepare("BEGIN IMMEDIATE");
    this.#commit = db.prepare("COMMIT");
    this.#rollback = db.prepare("ROLLBACK");
    this.#syncNormal = db.prepare("PRAGMA synchronous = NORMAL");
    this.#syncFull = db.prepare("PRAGMA synchronous = FULL");
    this.#savepoint = db.prepare("SAVEPOINT write");
    this.#release = db.prepare("RELEASE write");
    this.#rollbackTo = db.prepare("ROLLBACK TO write");
  }

  /** Transactions committed on this connection so far (lease writes excepted). */
  get commits(): number {
    return this.#commits;
  }

  /** Commits `work` at once when no commit happened yet this turn, else at the turn's end with the others. */
  write<T>(work: () => T, durability: Durability): T | Promise<T> {
    if (!this.#batching || this.#turnEnd === undefined || this.#alone) {
      const result = this.#transaction(work, durability);
      if (this.#batching && this.#turnEnd === undefined) this.#turnEnd = setImmediate(() => this.#endTurn());
      return result;
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, durability, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * Commits the queued writes now. Every other use of the connection (a read, a lease) calls this
   * first, so it sees every write issued before it, as when each write committed at once.
   */
  flush(): void {
    const queue = this.#queue;
    if (queue.length === 0) return;
    this.#queue = [];
    if (queue.length === 1) {
      const [only] = queue as [Queued];
      this.#writeAlone();
      try {
        only.resolve(this.#transaction(only.work, only.durability));
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    this.#batch(queue);
  }

  /**
   * Makes the connection ready for a read or a lease call: ends any transaction a failed ROLLBACK
   * left open (throwing while it cannot), then commits the queued writes.
   */
  beforeUse(): void {
    this.#endLeftover();
    this.flush();
  }

  /**
   * Puts off the WAL checkpoint the commit of the current transaction would run (SQLite checkpoints
   * at the commit that takes the WAL past 1000 pages, on the committer's time): it runs passively a
   * moment later, off the caller's path, and automatic checkpoints resume then. The commit is as
   * durable either way (the WAL is fsynced); until the checkpoint, readers find the pages in the WAL.
   */
  deferCheckpoint(): void {
    if (this.#checkpoint !== undefined) return;
    this.#db.pragma("wal_autocheckpoint = 0");
    this.#checkpoint = setTimeout(() => this.#checkpointNow(), DEFERRED_CHECKPOINT_MS);
    // A process about to exit need not wait for it: the next open or the close checkpoints.
    this.#checkpoint.unref();
  }

  #checkpointNow(): void {
    this.#checkpoint = undefined;
    if (!this.#db.open) return;
    try {
      this.#db.pragma("wal_checkpoint(PASSIVE)");
    } finally {
      this.#db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    }
  }

  /** Commits what is queued and stops batching; later writes commit at once (and fail on a closed file). */
  close(): void {
    if (this.#checkpoint !== undefined) clearTimeout(this.#checkpoint);
    this.#checkpoint = undefined;
    if (this.#turnEnd !== undefined) clearImmediate(this.#turnEnd);
    this.#turnEnd = undefined;
    this.flush();
  }

  /**
   * A write that waited a turn and found no company comes from a lone writer (a sequential one:
   * the store bench's port cycles, one invocation at a time): its caller's following writes in the
   * same run of microtasks commit at once instead of each waiting a turn. The mark ends once those
   * microtasks ran (a tick queued from a microtask runs after them all).
   */
  #writeAlone(): void {
    if (this.#alone) return;
    this.#alone = true;
    queueMicrotask(() =>
      process.nextTick(() => {
        this.#alone = false;
      }),
    );
  }

  #endTurn(): void {
    this.#turnEnd = undefined;
    // On a file closed under it the queued writes fail (and are rejected), never left waiting.
    if (this.#queue.length === 0) return;
    // The batch's callers resume in this turn and write again: they queue for the next one.
    this.#turnEnd = setImmediate(() => this.#endTurn());
    this.flush();
  }

  #batch(queue: readonly Queued[]): void {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.#run(queue.some((q) => q.durability === "full") ? "full" : "normal", () => {
        for (const { work } of queue) {
          try {
            this.#savepoint.run();
            const value = work();
            this.#release.run();
            outcomes.push({ ok: true, value });
          } catch (error) {
            outcomes.push({ ok: false, value: error });
            // Some failures (a full disk, an I/O error) roll back the whole transaction, the writes
            // before this one too: the batch ends here, a later write must not commit alone, and
            // the COMMIT that would find no transaction must not become everyone's error.
            if (!this.#db.inTransaction) throw error;
            // Undone here, or the batch fails whole: a COMMIT would keep what the write did before
            // it threw (the first of two closes) while its caller is told it failed.
            this.#rollbackTo.run();
            this.#release.run();
          }
        }
      });
    } catch (error) {
      // BEGIN, an undo or COMMIT failed: nothing of the batch is on disk, so every caller learns it.
      queue.forEach((q, i) => {
        const outcome = outcomes[i];
        q.reject(outcome !== undefined && !outcome.ok ? outcome.value : error);
      });
      return;
    }
    queue.forEach((q, i) => {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      if (outcome.ok) q.resolve(outcome.value);
      else q.reject(outcome.value);
    });
  }

  /**
   * A ROLLBACK that failed leaves its transaction open: the writes in it, refused to their callers,
   * would be read back, would commit with the next write (a lease taken inside it never would), and
   * its lock would hold off every other process. It is rolled back before the connection is used.
   */
  #endLeftover(): void {
    if (this.#db.open && this.#db.inTransaction) this.#rollback.run();
  }

  #rollbackQuietly(): void {
    try {
      this.#rollback.run();
    } catch {}
  }

  #transaction<T>(work: () => T, durability: Durability): T {
    let result: T | undefined;
    this.#run(durability, () => {
      result = work();
    });
    return result as T;
  }

  /** One `BEGIN IMMEDIATE` … COMMIT (rolled back when anything throws), at the durability asked for. */
  #run(durability: Durability, work: () => void): void {
    this.#endLeftover();
    // The safety level cannot change inside a transaction: set it around the whole of it.
    if (durability === "normal") this.#syncNormal.run();
    try {
      this.#begin.run();
      try {
        work();
        this.#commit.run();
        this.#commits += 1;
      } catch (error) {
        // The caller must learn what failed, not a failure of the rollback after it.
        if (this.#db.open && this.#db.inTransaction) this.#rollbackQuietly();
        throw error;
      }
    } finally {
      if (durability === "normal") this.#syncFull.run();
    }
  }
}

import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from "pg";

/** What the store's parts ask of the database: one statement, or a connection for a transaction. */
export interface Queryable {
  query<Row extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>>;
  connect(): Promise<PoolClient>;
}

/**
 * The pool with one connection kept checked out for statements that find it idle. A pooled statement
 * checks a connection out and back in (events, queue, callbacks: ~40 µs here, a tenth of a fsynced
 * claim); one sequential writer now skips that. A statement that finds it busy goes to the pool, so
 * concurrent invocations still commit on their own connections (and share WAL flushes there).
 */
export class StickyPool implements Queryable {
  readonly #pool: Pool;
  #client: PoolClient | undefined;
  /** The kept connection's error listener, taken off when it is no longer kept. */
  #onError: ((error: Error) => void) | undefined;
  #busy = false;
  #ended = false;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Runs one statement on the kept connection when it is idle, else on a pooled one. */
  async query<Row extends QueryResultRow = QueryResultRow>(config: QueryConfig): Promise<QueryResult<Row>> {
    if (this.#busy || this.#ended) return this.#pool.query<Row>(config);
    this.#busy = true;
    try {
      const client = this.#client ?? (await this.#checkOut());
      try {
        return await client.query<Row>(config);
      } catch (error) {
        // As the pool does with a connection whose statement failed: destroy it, take a fresh one next.
        this.#drop(client, error);
        throw error;
      }
    } finally {
      this.#busy = false;
      if (this.#ended && this.#client) this.#drop(this.#client);
    }
  }

  /**
   * A connection of the pool for a transaction. When the pool has no idle connection but the kept one
   * is idle, the kept one goes back to the pool first, which lends it at once: a new connection costs
   * milliseconds (a process's first transaction, a recovery after its reads), a checkout microseconds.
   */
  connect(): Promise<PoolClient> {
    if (!this.#busy && this.#client !== undefined && this.#pool.idleCount === 0) this.#drop(this.#client);
    return this.#pool.connect();
  }

  /** Gives the kept connection back (after a statement on it ends), so the pool can end. */
  release(): void {
    this.#ended = true;
    if (!this.#busy && this.#client) this.#drop(this.#client);
  }

  async #checkOut(): Promise<PoolClient> {
    const client = await this.#pool.connect();
    // A kept connection reports its loss as an event; unheard, the event would end the process.
    const onError = (error: Error) => this.#drop(client, error);
    client.on("error", onError);
    this.#client = client;
    this.#onError = onError;
    return client;
  }

  /** Stops keeping `client`; one that failed (or may have) is destroyed, not pooled again. */
  #drop(client: PoolClient, error?: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    // Off before it goes back: lent to a transaction and kept again, it would gain one more each time.
    if (this.#onError) client.off("error", this.#onError);
    this.#onError = undefined;
    client.release(error === undefined ? undefined : error instanceof Error ? error : true);
  }
}

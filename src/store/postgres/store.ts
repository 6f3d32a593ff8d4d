import pg from "pg";
import type { HistoryEvent } from "../../history/index.js";
import {
  type Operation,
  operationFromInvocation,
  operationFromToolAction,
  type ResolutionRecord,
} from "../../operations/index.js";
import type { ToolActionPhase } from "../../port/index.js";
import { LeaseLostError, StoreConflictError, StoreUnavailableError } from "../errors.js";
import type {
  ClockChange,
  ClockRecord,
  ControlPlaneStore,
  Fence,
  HistoryQuery,
  InvocationCommit,
  InvocationRecord,
  Lease,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import { PostgresLeases } from "./leases.js";
import { PostgresReads } from "./reads.js";
import { migrate } from "./schema.js";
import { PostgresWrites } from "./writes.js";

/** Options for the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** Schema holding the tables (created if missing); default: the server's search_path. */
  readonly schema?: string;
  /** Server-side limit per statement; a write that hits it rolls back and fails. Default 10000. */
  readonly statementTimeoutMs?: number;
  /** How long opening a connection may take. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Connections in the pool. Default 10. */
  readonly poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8_OID = 20;

/** A control plane shared by several runtime processes on several hosts, through one pooled database. */
export class PostgresControlPlaneStore implements ControlPlaneStore {
  readonly url: string;
  readonly #pool: pg.Pool;
  readonly #reads: PostgresReads;
  readonly #writes: PostgresWrites;
  readonly #leases: PostgresLeases;

  private constructor(url: string, pool: pg.Pool) {
    this.url = url;
    this.#pool = pool;
    this.#reads = new PostgresReads(pool);
    this.#writes = new PostgresWrites(pool);
    this.#leases = new PostgresLeases(pool);
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
    const statementTimeout = options.statementTimeoutMs ?? 10_000;
    const server = withSearchPath(connectionString, schema);
    const pool = new pg.Pool({
      connectionString: server.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      statement_timeout: statementTimeout,
      // A dead network never answers; give up a little after the server would have.
      query_timeout: statementTimeout + 5_000,
      keepAlive: true,
      ...(server.options === undefined ? {} : { options: server.options }),
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection the server drops is removed by the pool; the next query reconnects.
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      let failure: unknown;
      try {
        await migrate(client, schema);
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        client.release(failure instanceof Error ? failure : undefined);
      }
      return new PostgresControlPlaneStore(url, pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw storeError(url, error);
    }
  }

  async getOperation(id: string): Promise<Operation | undefined> {
    return this.#guard(async () => {
      const invocation = await this.#reads.invocation(id);
      if (invocation) return operationFromInvocation(invocation);
      const action = await this.#reads.toolAction(id);
      return action && operationFromToolAction(action);
    });
  }

  async listEvents(query: HistoryQuery = {}): Promise<HistoryEvent[]> {
    return this.#guard(() => this.#reads.events(query));
  }

  async getClock(clockAddress: string): Promise<ClockRecord | undefined> {
    return this.#guard(() => this.#reads.clock(clockAddress));
  }

  async getScheduler(
    participantAddress: string,
    policyAddress: string,
  ): Promise<SchedulerRecord | undefined> {
    return this.#guard(() => this.#reads.scheduler(participantAddress, policyAddress));
  }

  async listSchedulers(): Promise<SchedulerRecord[]> {
    return this.#guard(() => this.#reads.schedulers());
  }

  async getInvocation(id: string): Promise<InvocationRecord | undefined> {
    return this.#guard(() => this.#reads.invocation(id));
  }

  async listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]> {
    return this.#guard(() => this.#reads.openInvocations(participantAddress));
  }

  async getToolAction(id: string): Promise<ToolActionRecord | undefined> {
    return this.#guard(() => this.#reads.toolAction(id));
  }

  async listToolActions(query: ToolActionQuery): Promise<ToolActionRecord[]> {
    return this.#guard(() => this.#reads.toolActions(query));
  }

  async saveClock(clock: ClockRecord): Promise<void> {
    return this.#guard(() => this.#writes.saveClock(clock));
  }

  async updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    return this.#guard(() => this.#writes.updateClock(initial, change));
  }

  async saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.saveScheduler(scheduler, fence));
  }

  async openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
  ): Promise<void> {
    return this.#guard(() => this.#writes.openInvocation(invocation, scheduler, fence));
  }

  async insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.insertToolAction(action, fence));
  }

  async updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence?: Fence,
  ): Promise<boolean> {
    return this.#guard(() => this.#writes.updateToolAction(action, expectedPhase, fence));
  }

  async commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void> {
    return this.#guard(() => this.#writes.commitInvocation(commit, fence));
  }

  async recordResolution(id: string, resolution: ResolutionRecord): Promise<boolean> {
    return this.#guard(() => this.#writes.recordResolution(id, resolution));
  }

  async getLease(participantAddress: string): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.get(participantAddress));
  }

  async acquireLease(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    options: { readonly replacing?: string } = {},
  ): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.acquire(participantAddress, ownerId, ttlMs, options.replacing));
  }

  async releaseLease(lease: Lease): Promise<void> {
    return this.#guard(() => this.#leases.release(lease));
  }

  async close(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeError(this.url, error);
    }
  }
}

/** Moves the URL's own `options` into the startup options, so they and the schema's search_path both apply. */
function withSearchPath(
  connectionString: string,
  schema: string | undefined,
): { connectionString: string; options?: string } {
  if (schema === undefined) return { connectionString };
  const url = new URL(connectionString);
  const own = url.searchParams.get("options");
  url.searchParams.delete("options");
  const searchPath = `-c search_path=${schema}`;
  return { connectionString: url.toString(), options: own ? `${own} ${searchPath}` : searchPath };
}

/** Maps a driver failure to the store's errors: integrity violation → conflict, anything else → unavailable. */
function storeError(url: string, error: unknown): Error {
  if (
    error instanceof StoreConflictError ||
    error instanceof LeaseLostError ||
    error instanceof StoreUnavailableError
  ) {
    return error;
  }
  const sqlState = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message || String(error) : String(error);
  if (typeof sqlState === "string" && sqlState.startsWith("23")) {
    return new StoreConflictError(`control-plane store ${redact(url)}: ${message}`);
  }
  return new StoreUnavailableError(`control-plane store ${redact(url)} is unavailable: ${message}`, {
    cause: error,
  });
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}

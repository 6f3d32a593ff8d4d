import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
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
}

/** The default control plane: one SQLite file in WAL mode, shareable by several processes. */
export class SqliteControlPlaneStore implements ControlPlaneStore {
  readonly url: string;
  readonly #db: Database.Database;
  readonly #reads: SqliteReads;
  readonly #writes: SqliteWrites;
  readonly #leases: SqliteLeases;

  private constructor(url: string, db: Database.Database, now: () => number) {
    this.url = url;
    this.#db = db;
    this.#reads = new SqliteReads(db);
    this.#leases = new SqliteLeases(db, now);
    this.#writes = new SqliteWrites(db, this.#leases);
  }

  /** Opens (creating and migrating when writable) the database file at `path`, relative to the cwd. */
  static open(url: string, path: string, options: SqliteStoreOptions = {}): SqliteControlPlaneStore {
    const file = resolve(path);
    let db: Database.Database | undefined;
    try {
      const readOnly = options.readOnly === true || isWriteProtected(file);
      if (!readOnly) mkdirSync(dirname(file), { recursive: true });
      db = new Database(file, {
        readonly: readOnly,
        fileMustExist: readOnly,
        timeout: options.busyTimeoutMs ?? 5000,
      });
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
      throw storeError(url, error);
    }
  }

  async getOperation(id: string): Promise<Operation | undefined> {
    return this.#guard(() => {
      const invocation = this.#reads.invocation(id);
      if (invocation) return operationFromInvocation(invocation);
      const action = this.#reads.toolAction(id);
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
    this.#guard(() => this.#writes.saveClock(clock));
  }

  async updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    return this.#guard(() => this.#writes.updateClock(initial, change));
  }

  async saveScheduler(scheduler: SchedulerRecord, fence?: Fence): Promise<void> {
    this.#guard(() => this.#writes.saveScheduler(scheduler, fence));
  }

  async openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence?: Fence,
  ): Promise<void> {
    this.#guard(() => this.#writes.openInvocation(invocation, scheduler, fence));
  }

  async insertToolAction(action: ToolActionRecord, fence?: Fence): Promise<void> {
    this.#guard(() => this.#writes.insertToolAction(action, fence));
  }

  async updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence?: Fence,
  ): Promise<boolean> {
    return this.#guard(() => this.#writes.updateToolAction(action, expectedPhase, fence));
  }

  async commitInvocation(commit: InvocationCommit, fence?: Fence): Promise<void> {
    this.#guard(() => this.#writes.commitInvocation(commit, fence));
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
    this.#guard(() => this.#leases.release(lease));
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(this.url, error);
    }
  }
}

/**
 * A file with no write permission bit opens read-only even for root (whom the OS would let write),
 * so `chmod a-w` reliably freezes a control plane.
 */
function isWriteProtected(file: string): boolean {
  return existsSync(file) && (statSync(file).mode & 0o222) === 0;
}

/** Maps a driver failure to the store's errors: constraint → conflict, anything else → unavailable. */
function storeError(url: string, error: unknown): Error {
  if (
    error instanceof StoreConflictError ||
    error instanceof LeaseLostError ||
    error instanceof StoreUnavailableError
  ) {
    return error;
  }
  if (error instanceof Database.SqliteError && error.code.startsWith("SQLITE_CONSTRAINT")) {
    return new StoreConflictError(`control-plane store ${url}: ${error.message}`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`control-plane store ${url} is unavailable: ${message}`, { cause: error });
}

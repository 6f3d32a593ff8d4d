import type { ClockRecord, Fence } from "./types.js";

/** Codes of the store's errors (`docs/reference/codes.md`). */
export const StoreErrorCode = {
  /**
   * The store could not be reached or could not commit: the seed's code for a write the control plane
   * could not record, which the port answers with too.
   */
  unavailable: "ledger_unavailable",
  /** A uniqueness or state precondition failed. */
  conflict: "store.conflict",
  /** The writer's lease is no longer current. */
  lease_lost: "store.lease-lost",
  /** There is no store at the URL, and it was not to be created. */
  missing: "store.missing",
  /**
   * The file a SQLite store URL names exists and is not a SQLite database (a text file, say), or the
   * PostgreSQL schema holds another tool's `schema_migrations` table; it is left as it is.
   */
  not_a_store: "store.not-a-store",
  /** An invocation open's clock change would not yield the clock the opener expected. */
  clock_moved: "store.clock-moved",
  /** A new v3 reservation was checked against a pool version another reservation has since moved on. */
  pool_moved: "store.resource-pool-moved",
  /**
   * An invocation open was checked against a participant's execution service that another write has
   * since changed (a pause or drain from another process, say).
   */
  service_moved: "store.service-moved",
  /** A store URL names no known store, or names one badly. */
  url_invalid: "store.url-invalid",
  /** The store URL names a store whose driver, an optional package (`pg` for PostgreSQL), is not installed. */
  driver_missing: "store.driver-missing",
  /**
   * A stored row holds a value the store never writes (a body or resolution that is not JSON): it was
   * changed outside the store. `raes verify` exits 1 naming the row.
   */
  row_unreadable: "store.row-unreadable",
  /**
   * An operator decision (or the resolution or approval written with it) holds a NUL or a lone
   * surrogate in a string: it would not read back from every store as its chain sealed it. Nothing was written.
   */
  decision_invalid: "store.decision-invalid",
  /**
   * A table, column or function of the store's schema is missing (dropped or altered outside the
   * store, say): the store cannot serve until it is restored. Not an outage, so never
   * `ledger_unavailable`; nothing was written.
   */
  schema_damaged: "store.schema-damaged",
} as const;
/** A store error code. */
export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

/** A stored row holds a value the store never writes; the message names the row. */
export class StoreRowUnreadableError extends Error {
  readonly code = StoreErrorCode.row_unreadable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreRowUnreadableError";
  }
}

/** The JSON value of a stored cell; `StoreRowUnreadableError` naming `row` when the cell is not JSON. */
export function parseStored(text: string, row: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StoreRowUnreadableError(`${row} is not JSON (${(error as Error).message})`, { cause: error });
  }
}

/** A decision holds a string no store keeps as the chain sealed it (a NUL, a lone surrogate); nothing was written. */
export class StoreDecisionInvalidError extends Error {
  readonly code = StoreErrorCode.decision_invalid;
  constructor(message: string) {
    super(message);
    this.name = "StoreDecisionInvalidError";
  }
}

/** The store's schema lacks a table, column or function its statements use; nothing was written. */
export class StoreSchemaDamagedError extends Error {
  readonly code = StoreErrorCode.schema_damaged;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreSchemaDamagedError";
  }
}

/**
 * The refusal of a store at `url` (as shown to users) whose schema lacks what raes-ts uses: `detail`
 * says what, in the server's words or the open's check.
 */
export function schemaDamaged(url: string, detail: string, cause?: unknown): StoreSchemaDamagedError {
  return new StoreSchemaDamagedError(
    `control-plane store ${url} is damaged: ${detail}; restore it from a backup, or run on a new store`,
    cause === undefined ? undefined : { cause },
  );
}

/** The store could not be reached or could not commit; nothing was written. */
export class StoreUnavailableError extends Error {
  readonly code = StoreErrorCode.unavailable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

/** A uniqueness or state precondition failed; nothing was written. */
export class StoreConflictError extends Error {
  readonly code = StoreErrorCode.conflict;
  constructor(message: string) {
    super(message);
    this.name = "StoreConflictError";
  }
}

/** The writer's lease is no longer current; its write was refused. */
export class LeaseLostError extends Error {
  readonly code = StoreErrorCode.lease_lost;
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}

/** The refusal of a write fenced by a token that is no longer the participant's current one. */
export function leaseLost(fence: Fence | undefined): LeaseLostError {
  return new LeaseLostError(`lease of ${fence?.participantAddress} is not held by token ${fence?.token}`);
}

/** The store was opened with `create: false` and there is none at its URL; nothing was created. */
export class StoreMissingError extends Error {
  readonly code = StoreErrorCode.missing;
  constructor(message: string) {
    super(message);
    this.name = "StoreMissingError";
  }
}

/** The URL names a file that is not a SQLite database, or a schema another tool migrates; nothing was read or written. */
export class StoreNotAStoreError extends Error {
  readonly code = StoreErrorCode.not_a_store;
  constructor(message: string) {
    super(message);
    this.name = "StoreNotAStoreError";
  }
}

/**
 * The store URL names a store whose driver is an optional package that is not installed (`pg` for
 * `postgres://`); nothing was opened. `driver` is the package to install.
 */
export class StoreDriverMissingError extends Error {
  readonly code = StoreErrorCode.driver_missing;
  readonly driver: string;
  constructor(message: string, driver: string) {
    super(message);
    this.name = "StoreDriverMissingError";
    this.driver = driver;
  }
}

/**
 * An invocation open's clock change would not yield the clock the opener expected (another process
 * paused, reset or advanced it further): nothing was written. `stored` is the clock as the store saw it.
 */
export class ClockMovedError extends Error {
  readonly code = StoreErrorCode.clock_moved;
  readonly stored: ClockRecord | undefined;
  constructor(message: string, stored: ClockRecord | undefined) {
    super(message);
    this.name = "ClockMovedError";
    this.stored = stored;
  }
}

/** The marker both SQL stores' triggers raise when a hold's pool versions are stale (schema step 19). */
export const POOL_MOVED_MARKER = "raes: resource pool moved";

/**
 * A new v3 hold was checked against pool versions another reservation has since moved on: nothing
 * was written. The reserver reads the pools again and decides anew.
 */
export class ResourcePoolMovedError extends Error {
  readonly code = StoreErrorCode.pool_moved;
  constructor(message: string) {
    super(message);
    this.name = "ResourcePoolMovedError";
  }
}

/**
 * An invocation open's admission (`ServiceAdmission`) no longer holds: the participant's execution service
 * record is not at the revision the runtime read and found accepting work. Nothing was written; the runtime
 * reads the service again and decides anew (docs/guide/operations.md, "Controlling one participant").
 */
export class ServiceMovedError extends Error {
  readonly code = StoreErrorCode.service_moved;
  constructor(message: string) {
    super(message);
    this.name = "ServiceMovedError";
  }
}

/** The refusal of an open whose admission was read at `admission.revision` and finds `stored` (none: undefined). */
export function serviceMoved(
  admission: { readonly participantAddress: string; readonly revision: number },
  stored: number | undefined,
): ServiceMovedError {
  return new ServiceMovedError(
    `the execution service of ${admission.participantAddress} is at revision ${stored ?? "none"}, the open was admitted at ${admission.revision}`,
  );
}

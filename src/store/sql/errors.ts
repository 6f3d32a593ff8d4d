import { codeOf } from "../../records/index.js";
import {
  ClockMovedError,
  LeaseLostError,
  POOL_MOVED_MARKER,
  ResourcePoolMovedError,
  StoreConflictError,
  StoreMissingError,
  StoreRowUnreadableError,
  StoreSchemaDamagedError,
  StoreUnavailableError,
  schemaDamaged,
} from "../errors.js";

/**
 * What a driver failure means: a constraint conflict, a store out of reach, a schema missing a table,
 * column or function its statements use, or a bug to show as it is.
 */
export type DriverFailure = "conflict" | "unavailable" | "damaged" | "bug";

/** Node's codes for a connection that failed or dropped, and for I/O that failed. */
const SYSTEM_UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EIO",
  "ENOSPC",
  "EROFS",
  "EACCES",
  "EPERM",
]);

/** True for a Node system error (or an AggregateError of them) about a connection or I/O. */
export function isSystemUnavailable(error: unknown): boolean {
  if (error instanceof AggregateError)
    return error.errors.length > 0 && error.errors.every(isSystemUnavailable);
  const code = codeOf(error);
  return code !== undefined && SYSTEM_UNAVAILABLE.has(code);
}

/**
 * Maps a driver failure to the store's errors: the store's own pass through, a conflict, an
 * unreachable store or a damaged schema (as `classify` says) becomes the store's error, and anything
 * else, a bug, is rethrown as it is so nobody mistakes it for an outage. `url` is as shown to users.
 */
export function storeError(url: string, error: unknown, classify: (error: unknown) => DriverFailure): Error {
  if (
    error instanceof ClockMovedError ||
    error instanceof StoreConflictError ||
    error instanceof LeaseLostError ||
    error instanceof StoreUnavailableError ||
    error instanceof StoreRowUnreadableError ||
    error instanceof StoreMissingError ||
    error instanceof StoreSchemaDamagedError ||
    error instanceof ResourcePoolMovedError
  ) {
    return error;
  }
  // A driver's AggregateError (every address refused) has an empty message.
  const message = error instanceof Error ? error.message || String(error) : String(error);
  // Raised by schema step 19's trigger: a new hold checked against a pool version that has moved on.
  if (message.includes(POOL_MOVED_MARKER))
    return new ResourcePoolMovedError(`control-plane store ${url}: ${message}`);
  const kind = classify(error);
  if (kind === "conflict") return new StoreConflictError(`control-plane store ${url}: ${message}`);
  if (kind === "damaged") return schemaDamaged(url, message, error);
  if (kind === "unavailable")
    return new StoreUnavailableError(`control-plane store ${url} is unavailable: ${message}`, {
      cause: error,
    });
  return error instanceof Error
    ? error
    : new Error(`control-plane store ${url}: ${message}`, { cause: error });
}

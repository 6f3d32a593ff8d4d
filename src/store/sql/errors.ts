import { LeaseLostError, StoreConflictError, StoreMissingError, StoreUnavailableError } from "../errors.js";

/**
 * Maps a driver failure to the store's errors: the store's own pass through, a failure `isConflict`
 * recognizes is a conflict, anything else means the store is unavailable. `url` is as shown to users.
 */
export function storeError(url: string, error: unknown, isConflict: (error: unknown) => boolean): Error {
  if (
    error instanceof StoreConflictError ||
    error instanceof LeaseLostError ||
    error instanceof StoreUnavailableError ||
    error instanceof StoreMissingError
  ) {
    return error;
  }
  // A driver's AggregateError (every address refused) has an empty message.
  const message = error instanceof Error ? error.message || String(error) : String(error);
  if (isConflict(error)) return new StoreConflictError(`control-plane store ${url}: ${message}`);
  return new StoreUnavailableError(`control-plane store ${url} is unavailable: ${message}`, { cause: error });
}

import type { LedgerWriteFailure } from "../../port/index.js";
import {
  LeaseLostError,
  StoreConflictError,
  StoreSchemaDamagedError,
  StoreUnavailableError,
} from "../../store/index.js";

/** Why a ledger write failed, as an operator needs to know: the port's answer is always `ledger_unavailable`. */
export const LedgerFailureCause = {
  /** Another runtime took the participant's lease; this one must stop writing. */
  lease_lost: "lease_lost",
  /** The stored record changed under the port, or a uniqueness rule refused the write. */
  conflict: "conflict",
  /** The store could not be reached or could not commit. */
  unavailable: "unavailable",
  /** A table, column or function the store's statements use is missing: the store was changed outside raes-ts. */
  schema_damaged: "schema_damaged",
  /** Anything else: a defect in the store or the runtime, shown with its error. */
  bug: "bug",
} as const;
/** A ledger failure cause. */
export type LedgerFailureCause = (typeof LedgerFailureCause)[keyof typeof LedgerFailureCause];

function causeOf(failure: LedgerWriteFailure): LedgerFailureCause {
  if (!("error" in failure)) return LedgerFailureCause.conflict;
  if (failure.error instanceof LeaseLostError) return LedgerFailureCause.lease_lost;
  if (failure.error instanceof StoreConflictError) return LedgerFailureCause.conflict;
  if (failure.error instanceof StoreUnavailableError) return LedgerFailureCause.unavailable;
  if (failure.error instanceof StoreSchemaDamagedError) return LedgerFailureCause.schema_damaged;
  return LedgerFailureCause.bug;
}

/**
 * One log line for a failed ledger write: its cause, the write and the store's message. It names
 * the action by id only: the request's fields never go to the log.
 */
export function ledgerFailureLine(failure: LedgerWriteFailure): string {
  const cause = causeOf(failure);
  const { error } = failure;
  const detail = !("error" in failure)
    ? "the stored record is no longer in the phase this port last wrote"
    : error instanceof Error
      ? `${error.name}: ${error.message}`
      : String(error);
  return `ledger write failed (${cause}): ${failure.write} of ${failure.actionInstanceId} to ${failure.phase}: ${detail}`;
}

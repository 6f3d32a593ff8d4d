/** Codes of errors the runtime manager raises (refusals of the port are answers, not errors). */
export const RuntimeErrorCode = {
  /** The manifest claims the composition but the runtime cannot take a port (or cannot admit actions). */
  registry_target_contract_mismatch: "registry.target-contract-mismatch",
  /** The manifest is not a valid backend manifest. */
  manifest_invalid: "runtime.manifest-invalid",
  /** A policy uses something the reference scheduler cannot run; it fails closed at planning. */
  planning_unsupported: "runtime.planning-unsupported",
  /** The control-plane store could not record a scheduler change. */
  ledger_unavailable: "ledger_unavailable",
  /** The participant has indeterminate tool actions that are not resolved yet. */
  unresolved_indeterminate: "runtime.unresolved-indeterminate-actions",
  /** The address names no participant this manager schedules. */
  unknown_participant: "runtime.unknown-participant",
  /** `admitAction` returned a result that is not valid for its request; the message names the field. */
  outer_result_invalid: "runtime.outer-result-invalid",
  /** The manager was closed. */
  manager_closed: "runtime.manager-closed",
} as const;
/** A runtime error code. */
export type RuntimeErrorCode = (typeof RuntimeErrorCode)[keyof typeof RuntimeErrorCode];

/** An error with a fixed code from `RuntimeErrorCode`. */
export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  readonly details: readonly string[];
  constructor(
    code: RuntimeErrorCode,
    message: string,
    details: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(details.length > 0 ? `${message}\n  ${details.join("\n  ")}` : message, options);
    this.name = "RuntimeError";
    this.code = code;
    this.details = details;
  }
}

import { RegistrationErrorCode } from "../manifest/index.js";
import { ParticipantToolActionRefusal } from "../port/index.js";
import { codeOf, type ParticipantControlCode } from "../records/index.js";
import { LeaseLostError, StoreUnavailableError } from "../store/index.js";
/** Codes of errors the runtime manager raises (refusals of the port are answers, not errors). */
export const RuntimeErrorCode = {
  /**
   * The manifest claims the composition but the runtime cannot take a port (or cannot admit actions):
   * RAES's registration code, the one `RegistrationErrorCode` owns.
   */
  registry_target_contract_mismatch: RegistrationErrorCode.target_contract_mismatch,
  /** The manifest is not a valid backend manifest. */
  manifest_invalid: "runtime.manifest-invalid",
  /** The model given to `open` is larger or deeper than any model a loadable scenario compiles to. */
  model_too_large: "runtime.model-too-large",
  /** A policy uses something the reference scheduler cannot run; it fails closed at planning. */
  planning_unsupported: "runtime.planning-unsupported",
  /** A real-time run without `tickMs` on a clock whose SDL declares no wall pacing (a `stepped` progression, or no runtime authority). */
  pacing_undeclared: "runtime.pacing-undeclared",
  /** A real-time run without `tickMs` over policy clocks whose SDL declares different wall pacing. */
  pacing_ambiguous: "runtime.pacing-ambiguous",
  /** A clock control named a clock no autonomous policy runs on. */
  clock_unknown: "runtime.clock-unknown",
  /** A clock control's tick is not a whole number ≥ 0. */
  clock_tick_invalid: "runtime.clock-tick-invalid",
  /** RAES's code for a clock jump the clock does not support (`supports_jump` false): RAES's time runtime refuses it. */
  clock_jump_unsupported: "runtime.backend-contract-invalid",
  /** RAES's code for a clock transition that would skip a running schedule's next cadence tick. */
  cadence_skipped: "runtime.participant-autonomous-cadence-skipped",
  /**
   * RAES's code for a jump that would leave a schedule in an older segment than its clock: a jump starts a
   * new segment (ADR-090), and RAES's schedules follow only a reset into one.
   */
  autonomous_readback_invalid: "runtime.participant-autonomous-readback-invalid",
  /** The control-plane store could not record a scheduler change: the seed's code, as the port answers it. */
  ledger_unavailable: ParticipantToolActionRefusal.ledger_unavailable,
  /** The participant has indeterminate tool actions that are not resolved yet. */
  unresolved_indeterminate: "runtime.unresolved-indeterminate-actions",
  /** The address names no participant this manager schedules. */
  unknown_participant: "runtime.unknown-participant",
  /** `admitAction` returned a result that is not valid for its request; the message names the field. */
  outer_result_invalid: "runtime.outer-result-invalid",
  /** Several participants failed in one step, each for its own reason (see `ParticipantsFailedError`). */
  participants_failed: "runtime.participants-failed",
  /** The manager was closed. */
  manager_closed: "runtime.manager-closed",
  /** A v3 reservation found a budget or pool without room; nothing reached the native runtime (RAES's code). */
  participant_resource_throttled: "runtime.participant-resource-throttled",
  /** A v3 result's measurement vector is missing, incomplete or foreign; the reservation is released (RAES's code). */
  participant_resource_measurement_untrusted: "runtime.participant-resource-measurement-untrusted",
  /** A v3 result measured more than it reserved, less than zero, or without evidence; released (RAES's code). */
  participant_resource_measurement_invalid: "runtime.participant-resource-measurement-invalid",
  /**
   * A v3 policy under a runtime that declares it returns no measurement vector (`measuresResources: false`,
   * as `raes run --agent-command` does): refused at open, nothing written (raes-ts's code).
   */
  resource_measurement_unsupported: "runtime.resource-measurement-unsupported",
  /** A v2 policy names a stochastic control the run did not supply (RAES's code). */
  activity_control_unbound: "runtime.participant-activity-control-unbound",
  /** A supplied stochastic control is malformed or supplied twice. */
  activity_control_invalid: "runtime.participant-activity-control-invalid",
  /**
   * The store's schedule was started with another stochastic control (namespace or seed) than the one
   * supplied now; RAES's code for existing autonomous state that does not match the policy.
   */
  activity_state_conflict: "runtime.participant-autonomous-state-conflict",
  /**
   * The scheduler cannot be resumed: its v2 continuation ended `failed` (failure_policy stop), and
   * only a reset starts the participant again.
   */
  scheduler_not_resumable: "runtime.scheduler-not-resumable",
  /**
   * RAES's admission code: the manifest's `time` capabilities lack coordinated participant reset while a
   * policy's progression resets or replays its clock.
   */
  autonomous_execution_unsupported: "participant.autonomous-execution-unsupported",
  /** RAES's code: a clock reset with autonomous participants under a manifest without coordinated participant reset. */
  coordinated_reset_unsupported: "runtime.coordinated-participant-reset-unsupported",
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

/**
 * A store that could not answer, as the runtime reports it: `RuntimeError(ledger_unavailable)` with
 * the store's error as its cause. Any other error is returned as it is, for the caller to rethrow.
 *
 * @example
 * throw asLedgerError(error); // in a catch around a store call
 */
export function asLedgerError(error: unknown): unknown {
  if (!(error instanceof StoreUnavailableError)) return error;
  return new RuntimeError(RuntimeErrorCode.ledger_unavailable, `store unavailable: ${error.message}`, [], {
    cause: error,
  });
}

/** A refused participant control (execution or episode); nothing was written. `code` is RAES's where it has one. */
export class ParticipantControlError extends Error {
  readonly code: ParticipantControlCode;
  constructor(code: ParticipantControlCode, message: string) {
    super(message);
    this.name = "ParticipantControlError";
    this.code = code;
  }
}

/** One participant's failure within a step. */
export interface ParticipantFailure {
  readonly participant: string;
  readonly error: unknown;
}

/**
 * Several participants failed in one step: `errors` holds each error and `participants` whose it
 * was. `code` is the code they all share (so `ledger_unavailable` stays recognisable), else
 * `runtime.participants-failed`.
 */
export class ParticipantsFailedError extends AggregateError {
  readonly code: string;
  readonly participants: readonly string[];
  constructor(failures: readonly ParticipantFailure[]) {
    const lines = failures.map(
      (f) => `${f.participant}: ${f.error instanceof Error ? f.error.message : String(f.error)}`,
    );
    super(
      failures.map((f) => f.error),
      `${failures.length} participants failed\n  ${lines.join("\n  ")}`,
    );
    this.name = "ParticipantsFailedError";
    this.participants = failures.map((f) => f.participant);
    const codes = new Set(failures.map((f) => codeOf(f.error)));
    const [shared] = codes;
    this.code = codes.size === 1 && shared !== undefined ? shared : RuntimeErrorCode.participants_failed;
  }
}

/**
 * A step that failed only because leases were taken over (they expired during a slow step) cost this
 * process those participants, whose new owners recover them; it logs that and answers an empty step.
 * Any other failure is thrown again.
 */
export function survivedLeaseLoss(
  error: unknown,
  log: (line: string) => void,
): { readonly steps: number; readonly invocations: readonly never[] } {
  const errors = error instanceof ParticipantsFailedError ? error.errors : [error];
  if (!errors.every((e) => e instanceof LeaseLostError)) throw error;
  log(`a participant's lease was taken over by another process; it continues there (${String(error)})`);
  return { steps: 1, invocations: [] };
}

/** The participants' failures an error of a step's run stands for, less those `skip` picks. */
export function failuresOf(
  error: unknown,
  skip: (error: unknown) => boolean = () => false,
): ParticipantFailure[] {
  const failures =
    error instanceof ParticipantsFailedError
      ? error.errors.map((e: unknown, i) => ({ participant: error.participants[i] ?? "?", error: e }))
      : [{ participant: "?", error }];
  return failures.filter((f) => !skip(f.error));
}

/** One error for `failures`: the only one as it is, several as `ParticipantsFailedError`. */
export function failureOf(failures: readonly ParticipantFailure[]): unknown {
  return failures.length === 1 ? failures[0]?.error : new ParticipantsFailedError(failures);
}

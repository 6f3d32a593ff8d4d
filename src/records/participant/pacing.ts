import {
  abandonedDrain,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
} from "./service.js";

/**
 * A loss of wall pacing, as the store keeps it (schema step 20): a step of a real-time run started later
 * than its progression's drift bound, so the execution service of each participant scheduled under a
 * policy on that clock is `degraded` (RAES's `pacing_deviation_refs`). Kept per participant, so the
 * status view and the timeline of any process read it (docs/guide/operations.md#real-time).
 */
export interface PacingDeviationRecord {
  readonly participantAddress: string;
  readonly policyAddress: string;
  readonly clockAddress: string;
  /** The clock's generation when pacing was lost: RAES keeps one deviation per generation. */
  readonly generation: number;
  /** RAES's evidence ref: `evidence:<policy>:pacing-loss:<clock>:generation-<g>`. */
  readonly ref: string;
  /** How late the first late step of this generation started, in milliseconds. */
  readonly latenessMs: number;
  /** The bound it exceeded (drift_bound_ticks ticks, one when undeclared), in milliseconds. */
  readonly boundMs: number;
  readonly recordedAt: string;
}

/** RAES's evidence ref of a pacing loss of `policyAddress` on `clockAddress` in `generation`. */
export function pacingDeviationRef(policyAddress: string, clockAddress: string, generation: number): string {
  return `evidence:${policyAddress}:pacing-loss:${clockAddress}:generation-${generation}`;
}

/**
 * The service readback with the stored pacing deviations of its policy joined in: `degraded` with RAES's
 * `pacing_deviation_refs` once pacing was lost under it, as every process reads it. The stored record
 * keeps `healthy` (the deviations are written by the running process apart from the record's revisions).
 * Unlike RAES, the service keeps running (docs/raes-mapping.md, "Pacing and clock jumps").
 */
export function withPacingHealth(
  service: ParticipantExecutionServiceState,
  deviations: readonly PacingDeviationRecord[],
): ParticipantExecutionServiceState {
  const refs = [
    ...new Set([
      ...service.pacing_deviation_refs,
      ...deviations.filter((d) => d.policyAddress === service.policy_address).map((d) => d.ref),
    ]),
  ];
  if (refs.length === 0) return service;
  return {
    ...service,
    health: service.health === "healthy" ? "degraded" : service.health,
    pacing_deviation_refs: refs,
  };
}

/**
 * A participant's service as every readback shows it (`participantExecutionState`, the status view, the
 * console, `raes control`): a drain abandoned by its process put back (`abandonedDrain`), and the stored
 * pacing deviations joined in (`withPacingHealth`). What a reader shows before anyone writes it.
 */
export function serviceReadback(
  record: ParticipantServiceRecord,
  deviations: readonly PacingDeviationRecord[],
  nowMs: number,
): ParticipantExecutionServiceState {
  return withPacingHealth((abandonedDrain(record, nowMs) ?? record).service, deviations);
}

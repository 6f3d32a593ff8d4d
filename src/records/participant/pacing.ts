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

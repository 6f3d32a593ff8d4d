import type { ActivityContinuation, ControlPlaneStore, Fence } from "../store/index.js";
import type { ParticipantShare } from "./participant-leases.js";
import type { ScheduleSpec } from "./plan.js";

/** Actions that became due for one schedule in one step. */
export interface DueWork {
  readonly participantAddress: string;
  readonly policyAddress: string;
  readonly ticks: readonly number[];
}

/** Options of `ScheduleBook.load`. */
export interface ScheduleBookOptions {
  readonly store: ControlPlaneStore;
  readonly specs: readonly ScheduleSpec[];
  readonly now: () => string;
  readonly ownerId: string;
  readonly leaseTtlMs: number;
  /** Wall clock in epoch milliseconds, to renew leases only when half their lifetime has passed. */
  readonly nowMs: () => number;
  /** Told this process's share of the participants whenever it changed, at a step boundary. */
  readonly onShare?: (share: ParticipantShare) => void;
  /** Settles interrupted invocations of participants this owner has just taken. */
  readonly recover: (
    participants: ReadonlySet<string>,
    fenceFor: (p: string) => Fence | undefined,
  ) => Promise<void>;
  /** A v2 schedule's continuation at the start of a segment (drawn from `tick`), to spread into its record. */
  readonly segmentStart?: (
    spec: ScheduleSpec,
    segment: number,
    tick: number,
  ) => { readonly activity?: ActivityContinuation };
}

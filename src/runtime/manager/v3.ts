import type { SchedulerRecord } from "../../store/index.js";
import type { InvocationContext } from "../invocation/index.js";
import type { ScheduleBook, ScheduleSpec } from "../schedule/index.js";
import {
  budgetEvents,
  budgetStates,
  ledgerEntries,
  newLedger,
  poolStates,
  type ReserveOutcome,
  releaseHeld,
  reserve,
  type Throttle,
  type V3Plan,
} from "../v3/index.js";

/** A throttled v3 attempt: held back, nothing reached the native runtime (DESIGN §15). */
export interface ResourceThrottle extends Throttle {
  readonly participantAddress: string;
  readonly policyAddress: string;
  /** The attempt that was held back; it is due again at the participant's next tick. */
  readonly operationId: string;
  readonly tick: number;
  readonly code: "runtime.participant-resource-throttled";
}

/** What the v3 parts of the scheduler share: every v3 policy's budgets, and who hears of throttles. */
export interface V3Run {
  readonly plans: ReadonlyMap<string, V3Plan>;
  readonly onThrottle?: (throttle: ResourceThrottle) => void;
}

/** The v3 plans of `specs`, by policy address. */
export function v3Plans(specs: readonly ScheduleSpec[]): Map<string, V3Plan> {
  const plans = new Map<string, V3Plan>();
  for (const spec of specs) if (spec.v3) plans.set(spec.policy.address, spec.v3);
  return plans;
}

/** Reserves a v3 attempt's whole vector against every v3 schedule this process holds. */
export function reserveAttempt(
  book: ScheduleBook,
  run: V3Run,
  spec: ScheduleSpec & { readonly v3: V3Plan },
  scheduler: SchedulerRecord,
  at: {
    readonly operationId: string;
    readonly tick: number;
    readonly segment: number;
    readonly generation: number;
  },
): ReserveOutcome {
  const all = ledgerEntries(book.describe(), (p) => run.plans.get(p), at.generation);
  const own = { plan: spec.v3, ledger: scheduler.resources ?? newLedger(spec.v3, at.generation) };
  return reserve(own, all, at);
}

/**
 * Settles, at open, the reservations of invocations a dead process left (their invocations are
 * consumed by recovery): released, as RAES releases a reservation without a trusted measurement.
 */
export async function settleInterruptedHolds(ctx: InvocationContext, book: ScheduleBook): Promise<void> {
  for (const record of book.describe()) {
    const held = record.resources?.held;
    if (!held) continue;
    const next: SchedulerRecord = {
      ...record,
      resources: releaseHeld(record.resources, record.segment, INTERRUPTED),
      updatedAt: ctx.now(),
    };
    const fence = book.fenceFor(record.participantAddress);
    await ctx.store.saveScheduler(next, ...(fence ? [fence] : []));
    book.updateScheduler(next);
  }
}

/** The release code of a reservation whose invocation a dead process left open. */
export const INTERRUPTED = "runtime.participant-resource-measurement-untrusted";

/** Budget states, pool states and events of the v3 schedules this process holds. */
export function resourceViews(book: ScheduleBook, specs: readonly ScheduleSpec[], run: V3Run) {
  const records = book.describe();
  const plans = [...run.plans.values()];
  const first = specs.find((s) => s.v3);
  const generation = first ? book.generationOf(first.policy.clockAddress) : 0;
  const tick = first ? book.tickOf(first.policy.clockAddress) : 0;
  const entries = ledgerEntries(records, (p) => run.plans.get(p), generation);
  return {
    budgets: budgetStates(entries, plans, generation, tick),
    pools: poolStates(entries, plans),
    events: budgetEvents(records),
  };
}

import type { ControlPlaneStore, SchedulerRecord } from "../../store/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import type { InvocationContext } from "../invocation/index.js";
import { type ScheduleBook, type ScheduleSpec, scheduleKey } from "../schedule/index.js";
import type { ParticipantRuntime } from "../types.js";
import {
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
  /** What this process last read of the store's shared pools and of other processes' v3 schedules. */
  readonly shared: SharedPools;
}

/**
 * Other processes' v3 schedules as last read, and the pool versions read just before them. Only a new
 * hold moves a pool's version (schema step 19), and only a new hold raises a pool's use, so while the
 * versions are unchanged the schedules read then bound the use now from above.
 */
export interface SharedPools {
  /** False until read, and after a hold was refused for a moved pool: the next reservation reads again. */
  synced: boolean;
  versions: Map<string, number>;
  foreign: readonly SchedulerRecord[];
}

/** Nothing read yet. */
export function newSharedPools(): SharedPools {
  return { synced: false, versions: new Map(), foreign: [] };
}

/** Reads the pools' versions, then every v3 schedule (so the schedules are at least as new as the versions). */
async function refresh(store: ControlPlaneStore, shared: SharedPools): Promise<void> {
  const versions = await store.listResourcePools();
  const rows = await store.listSchedulers();
  shared.versions = new Map(versions.map((p) => [p.poolKey, p.version]));
  shared.foreign = rows.filter((r) => r.resources !== undefined);
  shared.synced = true;
}

/** The pool keys a plan draws on. */
function poolsOf(plan: V3Plan): string[] {
  return [...new Set(plan.budgets.map((b) => b.poolKey))].sort();
}

/** After this process's hold at `poolVersions` was written, each of its pools is one further on. */
export function heldAt(
  shared: SharedPools,
  poolVersions: Readonly<Record<string, number>> | undefined,
): void {
  for (const [key, version] of Object.entries(poolVersions ?? {})) shared.versions.set(key, version + 1);
}

/**
 * Refuses v3 schedules under a runtime that declares it measures no resources: each of their attempts
 * would be released unmeasured and stop its participant (docs/guide/agents.md#v3-scenarios).
 */
export function refuseUnmeasured(runtime: ParticipantRuntime, specs: readonly ScheduleSpec[]): void {
  if (runtime.measuresResources !== false) return;
  const policies = [...new Set(specs.filter((s) => s.v3).map((s) => s.policy.address))];
  if (policies.length === 0) return;
  throw new RuntimeError(
    RuntimeErrorCode.resource_measurement_unsupported,
    "the participant runtime returns no v3 measurement vector, and every v3 attempt needs one",
    policies.map(
      (p) =>
        `${p}: participant-autonomous-execution/v3 needs a runtime that measures its resource vector (raes run --runtime MODULE; docs/guide/harness.md#autonomous-execution-v3)`,
    ),
  );
}

/** The v3 plans of `specs`, by policy address. */
export function v3Plans(specs: readonly ScheduleSpec[]): Map<string, V3Plan> {
  const plans = new Map<string, V3Plan>();
  for (const spec of specs) if (spec.v3) plans.set(spec.policy.address, spec.v3);
  return plans;
}

/**
 * Reserves a v3 attempt's whole vector against every v3 schedule sharing its pools: this process's own
 * (exact, from the book) and other processes' (as last read from the store). A reservation carries the
 * pool versions it was checked at, and the store writes it only while they hold (schema step 19), so
 * processes sharing a pool never both take its last room. A throttle decided on schedules read earlier
 * is decided again on fresh ones when another process may have given capacity back since.
 */
export async function reserveAttempt(
  store: ControlPlaneStore,
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
): Promise<ReserveOutcome> {
  const shared = run.shared;
  const pools = poolsOf(spec.v3);
  for (let fresh = false; ; ) {
    if (!shared.synced) {
      await refresh(store, shared);
      fresh = true;
    }
    const mine = book.describe();
    const owned = new Set(mine.map((r) => scheduleKey(r.participantAddress, r.policyAddress)));
    const foreign = shared.foreign.filter(
      (r) => !owned.has(scheduleKey(r.participantAddress, r.policyAddress)),
    );
    const all = ledgerEntries([...mine, ...foreign], (p) => run.plans.get(p), at.generation);
    const own = { plan: spec.v3, ledger: scheduler.resources ?? newLedger(spec.v3, at.generation) };
    const outcome = reserve(own, all, at);
    if (outcome.kind === "reserved") {
      const held = outcome.ledger.held;
      if (!held) return outcome;
      const poolVersions = Object.fromEntries(pools.map((k) => [k, shared.versions.get(k) ?? 0]));
      return { ...outcome, ledger: { ...outcome.ledger, held: { ...held, poolVersions } } };
    }
    if (fresh) return outcome;
    // Throttled on what was read earlier: exact unless a pool moved or another process's hold was counted.
    const now = new Map((await store.listResourcePools()).map((p) => [p.poolKey, p.version]));
    const moved = pools.some((k) => (now.get(k) ?? 0) !== (shared.versions.get(k) ?? 0));
    const foreignHolds = foreign.some((r) => r.resources?.held !== undefined);
    if (!moved && !foreignHolds) return outcome;
    shared.synced = false;
  }
}

/**
 * Settles the reservations of invocations a dead process left (their invocations are consumed by
 * recovery): released, as RAES releases a reservation without a trusted measurement. Runs at open and
 * whenever this process takes participants over (a dead owner's, or its own after an uncertain commit),
 * after their recovery and reload: at those points no invocation of this process holds them.
 */
export async function settleInterruptedHolds(
  ctx: Pick<InvocationContext, "store" | "now">,
  book: ScheduleBook,
  only?: ReadonlySet<string>,
): Promise<void> {
  for (const record of book.describe()) {
    const held = record.resources?.held;
    if (!held || (only && !only.has(record.participantAddress))) continue;
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

/** Budget states and pool states of the v3 schedules this process holds. */
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
  };
}

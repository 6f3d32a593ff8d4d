import type {
  ResourceBudgetEvent,
  ResourceBudgetStateView,
  ResourceLedger,
  SchedulerRecord,
} from "../../records/index.js";
import { type LedgerEntry, reconciled, type V3Plan } from "./ledger.js";

/** A physical pool's state as RAES reports it: capacity, protected capacity and use across every policy. */
export interface ResourcePoolStateView {
  /** `pool_ref|owner|resource_kind`. */
  readonly pool: string;
  readonly capacity: number;
  readonly protected_capacity: number;
  /** Committed use of counters plus everything reserved (RAES's pool use; windows not applied). */
  readonly used: number;
}

const GAUGES = new Set(["reservable_gauge", "lease"]);

/** The ledger entries of the v3 schedules among `records`, reconciled to `generation`. */
export function ledgerEntries(
  records: readonly SchedulerRecord[],
  planOf: (policyAddress: string) => V3Plan | undefined,
  generation: number,
): (LedgerEntry & { readonly participantAddress: string })[] {
  const out: (LedgerEntry & { readonly participantAddress: string })[] = [];
  for (const r of records) {
    const plan = planOf(r.policyAddress);
    if (!plan || !r.resources) continue;
    out.push({
      plan,
      ledger: reconciled(plan, r.resources, generation),
      participantAddress: r.participantAddress,
    });
  }
  return out;
}

/** Every v3 budget's state, summed over its policy's schedules, by policy then budget id. */
export function budgetStates(
  entries: readonly LedgerEntry[],
  plans: readonly V3Plan[],
  generation: number,
  tick: number,
): ResourceBudgetStateView[] {
  const out: ResourceBudgetStateView[] = [];
  for (const plan of plans) {
    const mine = entries.filter((e) => e.plan.policyAddress === plan.policyAddress);
    for (const { demand } of plan.budgets) {
      let reserved = 0;
      let cumulative = 0;
      let throttled = 0;
      let windowUse = 0;
      const w = demand.accountingMode === "windowed_counter" ? demand.windowTicks : null;
      const start = w !== null && w > 0 ? tick - (tick % w) : undefined;
      for (const { ledger } of mine) {
        const share = ledger.budgets[demand.budgetId];
        reserved += ledger.held ? (ledger.held.vector[demand.budgetId] ?? 0) : 0;
        cumulative += share?.cumulative ?? 0;
        throttled += share?.throttled ?? 0;
        if (share && share.windowStart === start) windowUse += share.windowUse;
      }
      out.push({
        policy_address: plan.policyAddress,
        budget_id: demand.budgetId,
        owner_ref: demand.ownerAddress,
        resource_kind: demand.resourceKind,
        unit: demand.unit,
        reserved,
        cumulative_use: cumulative,
        current_use: 0,
        throttled,
        // RAES's budget generation counts reconciliations from 0; raes-ts's execution generation starts at 1.
        generation: Math.max(0, generation - 1),
        limit: demand.limit,
        ...(start === undefined ? {} : { window_start: start, window_use: windowUse }),
      });
    }
  }
  return out;
}

/** Every physical pool's state, summed over every policy drawing on it, in pool order. */
export function poolStates(
  entries: readonly LedgerEntry[],
  plans: readonly V3Plan[],
): ResourcePoolStateView[] {
  const pools = new Map<
    string,
    { pool: string; capacity: number; protected_capacity: number; used: number }
  >();
  for (const plan of plans)
    for (const b of plan.budgets)
      if (!pools.has(b.poolKey))
        pools.set(b.poolKey, {
          pool: b.poolName,
          capacity: b.capacity,
          protected_capacity: b.protectedCapacity,
          used: 0,
        });
  for (const { plan, ledger } of entries) {
    for (const b of plan.budgets) {
      const pool = pools.get(b.poolKey);
      if (!pool) continue;
      const held = ledger.held ? (ledger.held.vector[b.demand.budgetId] ?? 0) : 0;
      const committed = GAUGES.has(b.demand.accountingMode)
        ? 0
        : (ledger.budgets[b.demand.budgetId]?.cumulative ?? 0);
      pool.used += held + committed;
    }
  }
  return [...pools.values()].sort((a, b) => (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0));
}

/**
 * Every logged budget transition of `records`, one event per budget (a throttle names only the budget
 * that lacked room, as RAES's throttle event does), in tick order then log order.
 */
export function budgetEvents(
  records: readonly {
    readonly participantAddress: string;
    readonly policyAddress: string;
    readonly resources?: Pick<ResourceLedger, "log" | "logged">;
  }[],
): ResourceBudgetEvent[] {
  const out: { event: ResourceBudgetEvent; order: number }[] = [];
  for (const r of records) {
    const log = r.resources?.log ?? [];
    const first = (r.resources?.logged ?? 0) - log.length;
    log.forEach((entry, i) => {
      // A commit or release stands for its reserve too (the log keeps one entry per operation).
      const transitions =
        entry.transition === "commit" || entry.transition === "release"
          ? (["reserve", entry.transition] as const)
          : ([entry.transition] as const);
      for (const transition of transitions)
        for (const [budgetId, requested] of Object.entries(entry.requested)) {
          const measured = transition === "commit" ? entry.measured?.[budgetId] : undefined;
          const code = transition === "reserve" ? undefined : entry.code;
          out.push({
            order: first + i,
            event: {
              transition,
              operation_id: entry.operationId,
              budget_id: budgetId,
              tick: entry.tick,
              segment: entry.segment,
              execution_generation: entry.generation,
              policy_address: r.policyAddress,
              participant_address: r.participantAddress,
              requested,
              ...(measured === undefined ? {} : { measured }),
              ...(code === undefined ? {} : { code }),
              ...(entry.capacityKind === undefined ? {} : { capacity_kind: entry.capacityKind }),
            },
          });
        }
    });
  }
  return out
    .sort(
      (a, b) =>
        a.event.execution_generation - b.event.execution_generation ||
        a.event.segment - b.event.segment ||
        a.event.tick - b.event.tick ||
        a.order - b.order,
    )
    .map((x) => x.event);
}

import type { CompiledResourceDemand } from "../../compiler/index.js";
import {
  RESOURCE_LOG_LIMIT,
  type ResourceBudgetInfo,
  type ResourceBudgetShare,
  type ResourceLedger,
  type ResourceLogEntry,
} from "../../records/index.js";

/** One budget of a v3 policy with the physical pool the manifest configured for it. */
export interface V3Budget {
  readonly demand: CompiledResourceDemand;
  /** The pool's identity (RAES's pool-state identity: pool, owner, kind, unit, mode, meter). */
  readonly poolKey: string;
  /** RAES's pool-state ref shown in views: `pool_ref|owner|resource_kind`. */
  readonly poolName: string;
  readonly capacity: number;
  readonly protectedCapacity: number;
}

/** The fixed parts of one v3 policy's budgets. */
export interface V3Plan {
  readonly policyAddress: string;
  /** In budget-id order, RAES's reservation order. */
  readonly budgets: readonly V3Budget[];
  /** The fairness obligation's `protected`: a protected budget may use a pool's protected capacity. */
  readonly protected: boolean;
}

/** One v3 schedule's ledger with its plan: what capacity checks sum over. */
export interface LedgerEntry {
  readonly plan: V3Plan;
  readonly ledger: ResourceLedger;
}

/** Why a reservation was refused: the first budget (in budget-id order) without capacity. */
export interface Throttle {
  readonly budgetId: string;
  readonly requested: number;
  readonly capacityKind: "logical budget" | "shared pool";
}

/** RAES's throttle code (`runtime.participant-resource-throttled`). */
export const THROTTLED = "runtime.participant-resource-throttled";

const GAUGES = new Set(["reservable_gauge", "lease"]);
const EMPTY_SHARE: ResourceBudgetShare = { cumulative: 0, throttled: 0, windowStart: 0, windowUse: 0 };

/** A new ledger for a schedule of `plan` starting at `generation`. */
export function newLedger(plan: V3Plan, generation: number): ResourceLedger {
  return { info: budgetInfo(plan), generation, budgets: {}, log: [], logged: 0, events: 0 };
}

/** Each budget's owner, kind, unit, accounting, limit and window as `plan` declares them. */
function budgetInfo(plan: V3Plan): Record<string, ResourceBudgetInfo> {
  const info: Record<string, ResourceBudgetInfo> = {};
  for (const { demand } of plan.budgets)
    info[demand.budgetId] = {
      owner: demand.ownerAddress,
      resourceKind: demand.resourceKind,
      unit: demand.unit,
      accountingMode: demand.accountingMode,
      limit: demand.limit,
      windowTicks: demand.accountingMode === "windowed_counter" ? demand.windowTicks : null,
    };
  return info;
}

/** The first tick of the window containing `tick` (windowed budgets with `window_ticks`). */
function windowStartOf(demand: CompiledResourceDemand, tick: number): number | undefined {
  const w = demand.windowTicks;
  return demand.accountingMode === "windowed_counter" && w !== null && w > 0 ? tick - (tick % w) : undefined;
}

/**
 * The use a budget share counts against capacity at `tick`. Gauges and leases count only what is held
 * in flight (RAES: `current_use + reserved`, with committed use never held); a windowed budget counts
 * its current window only (raes-ts honours `window_ticks`; RAES counts every committed unit); other
 * counters their cumulative use.
 */
function useAt(demand: CompiledResourceDemand, share: ResourceBudgetShare, tick: number): number {
  if (GAUGES.has(demand.accountingMode)) return 0;
  const start = windowStartOf(demand, tick);
  if (start === undefined) return share.cumulative;
  return share.windowStart === start ? share.windowUse : 0;
}

function shareOf(ledger: ResourceLedger, budgetId: string): ResourceBudgetShare {
  return ledger.budgets[budgetId] ?? EMPTY_SHARE;
}

function heldOf(ledger: ResourceLedger, budgetId: string): number {
  return ledger.held?.generation === ledger.generation ? (ledger.held.vector[budgetId] ?? 0) : 0;
}

/**
 * The ledger reconciled to `generation`, as RAES reconciles at a reset: `time_segment` budgets clear,
 * every other budget keeps its totals, and nothing stays reserved.
 */
export function reconciled(plan: V3Plan, ledger: ResourceLedger, generation: number): ResourceLedger {
  if (ledger.generation >= generation) return ledger;
  const budgets: Record<string, ResourceBudgetShare> = {};
  for (const { demand } of plan.budgets) {
    const share = shareOf(ledger, demand.budgetId);
    budgets[demand.budgetId] =
      demand.reset === "time_segment" ? { ...EMPTY_SHARE, throttled: share.throttled } : share;
  }
  const { held: _dropped, ...rest } = ledger;
  return { ...rest, generation, budgets };
}

/**
 * The ledger under a changed policy (an allowed policy change, which starts a new segment): each budget's
 * limit and window as the new plan declares them, reconciled to `generation`, the one the change's reset
 * starts (unless a hold is still to be settled). Written with the policy_change decision, so every reader of the store sees the new limits at once.
 */
export function ledgerUnderPolicy(plan: V3Plan, ledger: ResourceLedger, generation: number): ResourceLedger {
  const limits = { ...ledger, info: budgetInfo(plan) };
  // A hold an interrupted invocation left is settled at open, under the generation it was taken in.
  return ledger.held ? limits : reconciled(plan, limits, generation);
}

/**
 * The log with `entry` added. A commit or release replaces its own reserve entry, which it implies
 * (`budgetEvents` gives both), so the log holds one entry per operation.
 */
function appended(
  ledger: ResourceLedger,
  entry: ResourceLogEntry,
): Pick<ResourceLedger, "log" | "logged" | "events"> {
  const last = ledger.log.at(-1);
  const settles =
    entry.transition !== "reserve" &&
    last?.transition === "reserve" &&
    last.operationId === entry.operationId;
  // Every transition gets the next number; the store records each once by it (schema step 22).
  const events = (ledger.events ?? 0) + 1;
  const numbered: ResourceLogEntry = { seq: events, ...entry };
  if (settles) return { log: [...ledger.log.slice(0, -1), numbered], logged: ledger.logged, events };
  const log = [...ledger.log, numbered];
  return {
    log: log.length > RESOURCE_LOG_LIMIT ? log.slice(-RESOURCE_LOG_LIMIT) : log,
    logged: ledger.logged + 1,
    events,
  };
}

/** Where an operation happens: its id, tick, segment and generation. */
export interface OperationPoint {
  readonly operationId: string;
  readonly tick: number;
  readonly segment: number;
  readonly generation: number;
}

/** What a reservation attempt produced: the ledger with the hold, or with the throttle counted. */
export type ReserveOutcome =
  | { readonly kind: "reserved"; readonly ledger: ResourceLedger; readonly vector: Record<string, number> }
  | { readonly kind: "throttled"; readonly ledger: ResourceLedger; readonly throttle: Throttle };

/**
 * Reserves `own`'s whole vector or none of it (RAES's atomic reservation): each budget, in budget-id
 * order, must have room under min(limit, pool capacity) summed over its policy's schedules, and its pool
 * room summed over every schedule of every policy drawing on it (protected capacity kept for protected
 * budgets). The first budget without room throttles the reservation and nothing is held.
 */
export function reserve(own: LedgerEntry, all: readonly LedgerEntry[], at: OperationPoint): ReserveOutcome {
  const { plan } = own;
  const ledger = reconciled(plan, own.ledger, at.generation);
  const current = (entry: LedgerEntry) =>
    entry.ledger === own.ledger ? ledger : reconciled(entry.plan, entry.ledger, at.generation);
  const others = all
    .filter((e) => e.ledger !== own.ledger)
    .map((e) => ({ plan: e.plan, ledger: current(e) }));
  const everyone = [{ plan, ledger }, ...others];
  const vector: Record<string, number> = {};
  for (const budget of plan.budgets) {
    const { demand } = budget;
    const amount = demand.reservation;
    const used = (entry: LedgerEntry, b: V3Budget) =>
      useAt(b.demand, shareOf(entry.ledger, b.demand.budgetId), at.tick) +
      heldOf(entry.ledger, b.demand.budgetId);
    let budgetUsed = 0;
    let poolUsed = 0;
    let unprotectedUsed = 0;
    for (const entry of everyone) {
      for (const b of entry.plan.budgets) {
        if (entry.plan.policyAddress === plan.policyAddress && b.demand.budgetId === demand.budgetId)
          budgetUsed += used(entry, b);
        if (b.poolKey === budget.poolKey) {
          const u = used(entry, b);
          poolUsed += u;
          if (!entry.plan.protected) unprotectedUsed += u;
        }
      }
    }
    const budgetRoom = budgetUsed + amount <= Math.min(demand.limit, budget.capacity);
    const poolRoom =
      poolUsed + amount <= budget.capacity &&
      (plan.protected || unprotectedUsed + amount <= budget.capacity - budget.protectedCapacity);
    if (!budgetRoom || !poolRoom) {
      const throttle: Throttle = {
        budgetId: demand.budgetId,
        requested: amount,
        capacityKind: budgetRoom ? "shared pool" : "logical budget",
      };
      const share = shareOf(ledger, demand.budgetId);
      return {
        kind: "throttled",
        throttle,
        ledger: {
          ...ledger,
          budgets: { ...ledger.budgets, [demand.budgetId]: { ...share, throttled: share.throttled + 1 } },
          ...appended(ledger, {
            transition: "throttle",
            ...point(at),
            requested: { [demand.budgetId]: amount },
            code: THROTTLED,
            capacityKind: throttle.capacityKind,
          }),
        },
      };
    }
    vector[demand.budgetId] = amount;
  }
  return {
    kind: "reserved",
    vector,
    ledger: {
      ...ledger,
      held: { operationId: at.operationId, tick: at.tick, generation: at.generation, vector },
      ...appended(ledger, { transition: "reserve", ...point(at), requested: vector }),
    },
  };
}

function point(at: OperationPoint): Omit<OperationPoint, "operationId"> & { operationId: string } {
  return { operationId: at.operationId, tick: at.tick, segment: at.segment, generation: at.generation };
}

/** Commits the measured vector of the held reservation (RAES's commit), within the hold's window. */
export function commitHeld(
  plan: V3Plan,
  ledger: ResourceLedger,
  measured: Readonly<Record<string, number>>,
  segment: number,
): ResourceLedger {
  const held = ledger.held;
  if (!held || held.generation !== ledger.generation) return ledger;
  const budgets: Record<string, ResourceBudgetShare> = { ...ledger.budgets };
  for (const { demand } of plan.budgets) {
    const m = measured[demand.budgetId] ?? 0;
    const share = shareOf(ledger, demand.budgetId);
    const start = windowStartOf(demand, held.tick) ?? 0;
    budgets[demand.budgetId] = {
      ...share,
      cumulative: share.cumulative + m,
      windowStart: start,
      windowUse: (share.windowStart === start ? share.windowUse : 0) + m,
    };
  }
  const { held: _done, ...rest } = ledger;
  return {
    ...rest,
    budgets,
    ...appended(ledger, {
      transition: "commit",
      operationId: held.operationId,
      tick: held.tick,
      segment,
      generation: held.generation,
      requested: held.vector,
      measured: { ...measured },
    }),
  };
}

/** Releases the held reservation unused (RAES's release), recording why. */
export function releaseHeld(ledger: ResourceLedger, segment: number, code: string): ResourceLedger {
  const held = ledger.held;
  if (!held) return ledger;
  const { held: _done, ...rest } = ledger;
  return {
    ...rest,
    ...appended(ledger, {
      transition: "release",
      operationId: held.operationId,
      tick: held.tick,
      segment,
      generation: held.generation,
      requested: held.vector,
      code,
    }),
  };
}

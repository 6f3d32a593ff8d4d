/**
 * v3 resource-budget records (RAES's participant resource budgets; docs/guide/harness.md#autonomous-execution-v3).
 * One participant's schedule keeps its share of its policy's budgets in a `ResourceLedger`, committed with
 * the scheduler record in the same transaction as the invocation it belongs to: a reservation is durable
 * from the moment the native call may start, and a commit or release lands with the invocation's close.
 */

/** A budget transition, as DESIGN §15 and RAES's budget events name them. */
export const ResourceTransition = {
  /** The whole vector was reserved before the native call. */
  reserve: "reserve",
  /** The measured vector was committed. */
  commit: "commit",
  /** The reservation was given back without use (untrusted measurement, interrupted invocation, reset). */
  release: "release",
  /** A reservation was refused for want of capacity; nothing reached the native runtime. */
  throttle: "throttle",
} as const;
/** A budget transition. */
export type ResourceTransition = (typeof ResourceTransition)[keyof typeof ResourceTransition];

/** One participant's totals for one budget in the ledger's generation. */
export interface ResourceBudgetShare {
  /** Committed measured use in this generation (RAES's `cumulative_use`). */
  readonly cumulative: number;
  /** Throttled reservations in this generation. */
  readonly throttled: number;
  /** First tick of the window `windowUse` counts (windowed budgets with `window_ticks`). */
  readonly windowStart: number;
  /** Committed measured use inside the window starting at `windowStart`. */
  readonly windowUse: number;
}

/** A vector reserved and not yet committed or released. */
export interface ResourceHold {
  readonly operationId: string;
  readonly tick: number;
  readonly generation: number;
  /** Reserved quantity by budget id. */
  readonly vector: Readonly<Record<string, number>>;
  /**
   * The version of each pool (by pool key) the reservation was checked against. A store writes a new
   * hold only while every such pool is still at that version, and moves each on by one
   * (`ResourcePoolMovedError` otherwise): processes sharing a pool never both take its last room.
   */
  readonly poolVersions?: Readonly<Record<string, number>>;
}

/** A shared pool's version: how many reservations were ever taken against it (schema step 19). */
export interface ResourcePoolVersion {
  readonly poolKey: string;
  readonly version: number;
}

/** One entry of a ledger's log: one transition of one operation's vector. */
export interface ResourceLogEntry {
  /**
   * This transition's number in its schedule, from 1 (schema step 22): the store records each entry
   * once under it in `budget_events`, in the transaction that writes the ledger. Absent before step 22.
   */
  readonly seq?: number;
  readonly transition: ResourceTransition;
  readonly operationId: string;
  readonly tick: number;
  readonly segment: number;
  readonly generation: number;
  /** The requested vector (reserve, commit, release) or the one refused amount (throttle), by budget id. */
  readonly requested: Readonly<Record<string, number>>;
  /** The measured vector of a commit, by budget id. */
  readonly measured?: Readonly<Record<string, number>>;
  /** Why a release or throttle happened: a RAES or raes-ts code. */
  readonly code?: string;
  /** For a throttle: whether the `logical budget` or the `shared pool` lacked capacity. */
  readonly capacityKind?: "logical budget" | "shared pool";
}

/** What a budget is, kept with the ledger so store readers (`raes operations --budgets`) need no scenario. */
export interface ResourceBudgetInfo {
  /** The owner's address. */
  readonly owner: string;
  readonly resourceKind: string;
  readonly unit: string;
  /** Gauges and leases count what is held in flight; counters what was committed. */
  readonly accountingMode: string;
  readonly limit: number;
  /** The window of a windowed budget; null otherwise. */
  readonly windowTicks: number | null;
}

/** A v3 schedule's share of its policy's budgets. */
export interface ResourceLedger {
  /** Each budget's owner, kind, unit, limit and window, by budget id. */
  readonly info?: Readonly<Record<string, ResourceBudgetInfo>>;
  /** The execution generation these totals belong to; a reset reconciles them to the next one. */
  readonly generation: number;
  readonly budgets: Readonly<Record<string, ResourceBudgetShare>>;
  readonly held?: ResourceHold;
  /**
   * The most recent operations, oldest first, at most `RESOURCE_LOG_LIMIT`: one entry per operation (a
   * commit or release replaces its reserve entry) and one per throttle.
   */
  readonly log: readonly ResourceLogEntry[];
  /** How many entries were ever logged (the log keeps the last ones). */
  readonly logged: number;
  /**
   * How many transitions were ever recorded (a reserve and its commit are two): the `seq` of the last
   * one. Every one of them is a row of the store's `budget_events` (schema step 22).
   */
  readonly events?: number;
}

/** How many operations a ledger keeps in its log (each schedule row carries it, so it stays small). */
export const RESOURCE_LOG_LIMIT = 64;

/** A budget event as `RuntimeManager.resourceBudgetEvents()` returns it (DESIGN §15). */
export interface ResourceBudgetEvent {
  readonly transition: ResourceTransition;
  readonly operation_id: string;
  readonly budget_id: string;
  readonly tick: number;
  readonly segment: number;
  readonly execution_generation: number;
  readonly policy_address: string;
  readonly participant_address: string;
  readonly requested: number;
  readonly measured?: number;
  readonly code?: string;
  readonly capacity_kind?: "logical budget" | "shared pool";
}

/** A budget's state as RAES reports it, plus raes-ts's window fields for windowed budgets. */
export interface ResourceBudgetStateView {
  readonly policy_address: string;
  readonly budget_id: string;
  readonly owner_ref: string;
  readonly resource_kind: string;
  readonly unit: string;
  readonly reserved: number;
  readonly cumulative_use: number;
  readonly current_use: number;
  readonly throttled: number;
  /** RAES's budget generation: 0 at start, one more at each reset (the execution generation minus one). */
  readonly generation: number;
  readonly limit: number;
  /** raes-ts only (RAES has no rolling window): the current window's first tick and its use. */
  readonly window_start?: number;
  readonly window_use?: number;
}

/** One row of budget use: a budget of a policy, summed over its schedules, in its current window. */
export interface ResourceUseRow {
  readonly owner: string;
  readonly policy_address: string;
  readonly budget_id: string;
  readonly resource_kind: string;
  readonly unit: string;
  /** The window's first tick and the tick after it; null for budgets without a window. */
  readonly window: readonly [number, number] | null;
  /** Use in the window (windowed budgets), held in flight (gauges and leases) or in the generation (others). */
  readonly used: number;
  readonly limit: number;
  readonly reserved: number;
  readonly throttled: number;
  readonly generation: number;
}

/**
 * Budget use per owner and window from stored v3 schedules (newest generation only), sorted by owner,
 * policy and budget. A windowed budget shows the window of its latest commit.
 */
export function resourceUseRows(
  records: readonly { readonly policyAddress: string; readonly resources?: ResourceLedger }[],
): ResourceUseRow[] {
  const top = new Map<string, number>();
  for (const r of records)
    if (r.resources)
      top.set(r.policyAddress, Math.max(top.get(r.policyAddress) ?? 0, r.resources.generation));
  const rows = new Map<string, ResourceUseRow>();
  for (const r of records) {
    const ledger = r.resources;
    if (!ledger || ledger.generation !== top.get(r.policyAddress)) continue;
    for (const [budgetId, info] of Object.entries(ledger.info ?? {})) {
      const share = ledger.budgets[budgetId];
      const key = `${r.policyAddress}\u0000${budgetId}`;
      const before = rows.get(key);
      const windowed = info.windowTicks !== null && info.windowTicks > 0;
      const start = Math.max(share?.windowStart ?? 0, before?.window?.[0] ?? 0);
      const sameWindow = (s: number | undefined) => s === start;
      const gauge = info.accountingMode === "reservable_gauge" || info.accountingMode === "lease";
      const used = gauge
        ? (before?.used ?? 0) + (ledger.held?.vector[budgetId] ?? 0)
        : windowed
          ? (sameWindow(share?.windowStart) ? (share?.windowUse ?? 0) : 0) +
            (before && sameWindow(before.window?.[0]) ? before.used : 0)
          : (share?.cumulative ?? 0) + (before?.used ?? 0);
      rows.set(key, {
        owner: info.owner,
        policy_address: r.policyAddress,
        budget_id: budgetId,
        resource_kind: info.resourceKind,
        unit: info.unit,
        window: windowed ? [start, start + (info.windowTicks ?? 0)] : null,
        used,
        limit: info.limit,
        reserved: (before?.reserved ?? 0) + (ledger.held?.vector[budgetId] ?? 0),
        throttled: (before?.throttled ?? 0) + (share?.throttled ?? 0),
        // RAES's budget generation counts reconciliations from 0.
        generation: Math.max(0, ledger.generation - 1),
      });
    }
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows.values()].sort(
    (a, b) =>
      cmp(a.owner, b.owner) || cmp(a.policy_address, b.policy_address) || cmp(a.budget_id, b.budget_id),
  );
}

/**
 * One budget event as the store keeps it (schema step 22): one transition of one v3 schedule's ledger,
 * written in the transaction that wrote the ledger, never dropped.
 */
export interface ResourceBudgetEventRecord {
  /** The store's order of budget events, from 1 (gaps allowed): where the next page starts. */
  readonly sequence: number;
  readonly participantAddress: string;
  readonly policyAddress: string;
  /** The transition's number in its schedule (`ResourceLogEntry.seq`). */
  readonly seq: number;
  /** The transition as the ledger logged it (the canonical JSON the store keeps, parsed). */
  readonly entry: ResourceLogEntry;
}

/** Which budget events to read, a page at a time. */
export interface ResourceBudgetEventQuery {
  /** Only this participant's events. */
  readonly participantAddress?: string;
  /** Only events after this sequence: where the next page starts. */
  readonly afterSequence?: number;
  /** At most this many events, the first in sequence order. */
  readonly limit: number;
  /** Only the last this many matching events (still in sequence order), read from the end. */
  readonly last?: number;
}

/** The budget events a store keeps, and how many a listing shows. */
export interface ResourceEventCounts {
  /** Budget events recorded in the store (each transition of each v3 schedule). */
  readonly logged: number;
  /** Budget events kept: every one since schema step 22 (`logged`). */
  readonly kept: number;
}

/**
 * The line under a listing of the most recent `shown` of `counts.logged` budget events that says how to
 * read the rest; undefined when every one is shown. `pageCommand` is the command that lists them.
 */
export function resourceEventNote(
  counts: ResourceEventCounts,
  shown: number,
  pageCommand: string,
): string | undefined {
  const more = counts.logged - shown;
  if (more <= 0) return undefined;
  return `budget events: and ${more} more (${counts.logged} in all): ${pageCommand}`;
}

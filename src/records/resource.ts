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
}

/** One entry of a ledger's log: one transition of one operation's vector. */
export interface ResourceLogEntry {
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

/** A v3 schedule's share of its policy's budgets. */
export interface ResourceLedger {
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

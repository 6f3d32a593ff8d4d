/** A column and its type, which PostgreSQL also casts the column's parameter to. */
export type Column = readonly [name: string, type: "text" | "bigint" | "boolean" | "json"];

export const CLOCK_COLUMNS: readonly Column[] = [
  ["clock_address", "text"],
  ["segment", "bigint"],
  ["tick", "bigint"],
  ["generation", "bigint"],
  ["paused", "boolean"],
  ["updated_at", "text"],
];

export const SCHEDULER_COLUMNS: readonly Column[] = [
  ["participant_address", "text"],
  ["policy_address", "text"],
  ["lifecycle", "text"],
  ["stop_reason", "text"],
  ["next_ordinal", "bigint"],
  ["attempts", "bigint"],
  ["cursor", "bigint"],
  ["segment", "bigint"],
  ["tick", "bigint"],
  ["continuation", "text"],
  ["attempt_bound", "bigint"],
  ["stream_fingerprint", "text"],
  ["policy_digest", "text"],
  ["resources", "text"],
  ["execution_resets", "bigint"],
  ["updated_at", "text"],
];

export const INVOCATION_COLUMNS: readonly Column[] = [
  ["id", "text"],
  ["policy_address", "text"],
  ["participant_address", "text"],
  ["action_contract_address", "text"],
  ["observation_boundary_address", "text"],
  ["episode_id", "text"],
  ["segment", "bigint"],
  ["tick", "bigint"],
  ["ordinal", "bigint"],
  ["execution_scope_ref", "text"],
  ["execution_generation", "bigint"],
  ["observation_point", "text"],
  ["participant_implementation_ref", "text"],
  ["state", "text"],
  ["started_at", "text"],
  ["ended_at", "text"],
  ["recovered_at", "text"],
  ["refusals", "text"],
  ["created_at", "text"],
  ["updated_at", "text"],
];

export const TOOL_ACTION_COLUMNS: readonly Column[] = [
  ["id", "text"],
  ["invocation_id", "text"],
  ["participant_address", "text"],
  ["tool_call_id", "text"],
  ["admission_ordinal", "bigint"],
  ["request_digest", "text"],
  ["request", "json"],
  ["phase", "text"],
  ["settlement", "text"],
  ["failure_class", "text"],
  ["evidence_refs", "json"],
  ["unknown_reason", "text"],
  ["withheld_reason", "text"],
  ["resolution", "json"],
  ["approval", "json"],
  ["admitted_at", "text"],
  ["dispatched_at", "text"],
  ["settled_at", "text"],
  ["recovered_at", "text"],
  ["created_at", "text"],
  ["updated_at", "text"],
];

/** What an invocation's close changes; the rest is fixed when it opens. */
export const INVOCATION_CLOSE_COLUMNS: readonly Column[] = INVOCATION_COLUMNS.filter(([name]) =>
  ["state", "ended_at", "recovered_at", "refusals", "updated_at"].includes(name),
);

/** What a tool action's later steps (dispatch, settlement, recovery) change; the rest is fixed at its claim. */
export const TOOL_ACTION_SETTLE_COLUMNS: readonly Column[] = TOOL_ACTION_COLUMNS.filter(([name]) =>
  [
    "phase",
    "settlement",
    "failure_class",
    "evidence_refs",
    "unknown_reason",
    "withheld_reason",
    "resolution",
    "approval",
    "dispatched_at",
    "settled_at",
    "recovered_at",
    "updated_at",
  ].includes(name),
);

/** The row's values in `columns` order, for positional parameters. */
export function columnValues(columns: readonly Column[], row: object): unknown[] {
  return columns.map(([name]) => (row as Record<string, unknown>)[name]);
}

/** The columns' names, for drivers that bind by name. */
export function columnNames(columns: readonly Column[]): string[] {
  return columns.map(([name]) => name);
}

import type { HistoryQuery, ToolActionQuery } from "../types.js";

/** One optional filter of a listing: its column, its parameter name, and its value when set. */
export type Filter = readonly [column: string, name: string, value: string | undefined];

/** The filters of a tool action listing. */
export function toolActionFilters(query: ToolActionQuery): Filter[] {
  return [
    ["invocation_id", "invocationId", query.invocationId],
    ["participant_address", "participantAddress", query.participantAddress],
    ["phase", "phase", query.phase],
  ];
}

/** The filters of a history listing. */
export function eventFilters(query: HistoryQuery): Filter[] {
  return [
    ["participant_address", "participantAddress", query.participantAddress],
    ["episode_id", "episodeId", query.episodeId],
  ];
}

/**
 * `select` with a WHERE clause of the filters that are set; `bind` takes a set value and gives its
 * placeholder. The SQL text (and so its prepared statement) is one per combination of set filters.
 */
export function where(
  select: string,
  filters: readonly Filter[],
  bind: (name: string, value: string) => string,
): string {
  const clauses: string[] = [];
  for (const [column, name, value] of filters) {
    if (value !== undefined) clauses.push(`${column} = ${bind(name, value)}`);
  }
  return clauses.length === 0 ? select : `${select} WHERE ${clauses.join(" AND ")}`;
}

/** An upsert's `SET` list: every column but the key's takes the value that conflicted. */
export function fromExcluded(columns: readonly string[], key: readonly string[]): string {
  return columns
    .filter((column) => !key.includes(column))
    .map((column) => `${column} = excluded.${column}`)
    .join(", ");
}

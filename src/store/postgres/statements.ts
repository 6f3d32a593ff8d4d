import { fromExcluded } from "../sql/clauses.js";
import { columnNames } from "../sql/columns.js";
import type { Column } from "./rows.js";

// Text of the PostgreSQL write statements: `$n::type` parameters numbered from `first`.

/** The column names, comma-separated. */
export function names(columns: readonly Column[]): string {
  return columnNames(columns).join(", ");
}

function placeholders(columns: readonly Column[], first: number): string[] {
  return columns.map(([, type], i) => `$${first + i}::${type}`);
}

/** An insert of one row of `columns` from parameters, only where `guard` holds. */
export function insert(table: string, columns: readonly Column[], first: number, guard: string): string {
  return `INSERT INTO ${table} (${names(columns)}) SELECT ${placeholders(columns, first).join(", ")} WHERE ${guard}`;
}

/** `insert`, replacing the row with the same `key` (comma-separated columns); returns 1 per row written. */
export function upsert(
  table: string,
  columns: readonly Column[],
  first: number,
  key: string,
  guard: string,
): string {
  return `${insert(table, columns, first, guard)} ON CONFLICT (${key}) DO UPDATE SET ${excluded(columns, key)} RETURNING 1`;
}

function excluded(columns: readonly Column[], key: string): string {
  return fromExcluded(columnNames(columns), key.split(", "));
}

/** `SET` list for every column but the first (the key), numbered from the key's parameter. */
export function assignments(columns: readonly Column[], first: number): string {
  const values = placeholders(columns, first);
  return columns
    .slice(1)
    .map(([name], i) => `${name} = ${values[i + 1]}`)
    .join(", ");
}

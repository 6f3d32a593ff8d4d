import {
  type Cells,
  CLOCK_COLUMNS,
  type ClockRow as ClockCells,
  type Column,
  columnValues,
  INVOCATION_COLUMNS,
  invocationRow,
  rowMappings,
  SCHEDULER_COLUMNS,
  schedulerRow,
  setColumns,
  TOOL_ACTION_COLUMNS,
  TOOL_ACTION_SETTLE_COLUMNS,
  type ToolActionRow as ToolActionCells,
  toolActionSettleRows,
} from "../sql/index.js";
import type { ClockRecord, InvocationRecord, SchedulerRecord, ToolActionRecord } from "../types.js";

export {
  CLOCK_COLUMNS,
  type Column,
  historyEvent,
  INVOCATION_COLUMNS,
  type InvocationRow,
  invocationRecord,
  SCHEDULER_COLUMNS,
  type SchedulerRow,
  schedulerRecord,
  TOOL_ACTION_COLUMNS,
} from "../sql/index.js";

// The driver takes and returns booleans as they are, and parses the json columns it reads.
const CELLS: Cells<boolean, false> = {
  flag: (value) => value,
  isSet: (cell) => cell,
  json: (value) => value,
  parse: (cell) => cell,
};

/** A `clocks` row as the driver returns it (bigint parsed to number). */
export type ClockRow = ClockCells<boolean>;
/** A `tool_actions` row; its json columns arrive parsed. */
export type ToolActionRow = ToolActionCells<false>;

export const { clockRow, clockRecord, toolActionRow, toolActionRecord } = rowMappings(CELLS);
/** A tool action's id and later-step columns (`TOOL_ACTION_SETTLE_COLUMNS`); json columns as they are. */
export const toolActionSettleRow = toolActionSettleRows(CELLS);

/** A tool action's later step: the `TOOL_ACTION_SETTLE_COLUMNS` it sets (`setColumns`), and their parameters. */
export interface ToolActionChange {
  readonly columns: readonly Column[];
  /** The columns' names, comma-separated: one statement per distinct set. */
  readonly key: string;
  /** Its id, then the columns' values in order; json as JSON text. */
  readonly values: unknown[];
}

const SETTLE_NAMES = TOOL_ACTION_SETTLE_COLUMNS.map(([name]) => name);
const SETTLE_BY_NAME = new Map(TOOL_ACTION_SETTLE_COLUMNS.map((column) => [column[0], column]));

/** The columns a tool action's later step writes and their parameters. */
export function toolActionChange(a: ToolActionRecord): ToolActionChange {
  const row = toolActionSettleRow(a);
  const names = setColumns(row, SETTLE_NAMES);
  const columns = names.map((name) => SETTLE_BY_NAME.get(name) as Column);
  const values: unknown[] = [row.id];
  for (const [name, type] of columns) {
    const value = row[name as keyof typeof row];
    values.push(type === "json" && value !== null ? JSON.stringify(value) : value);
  }
  return { columns, key: names.join(","), values };
}

/** Parameters of a clock write, in `CLOCK_COLUMNS` order. */
export function clockValues(c: ClockRecord): unknown[] {
  return columnValues(CLOCK_COLUMNS, clockRow(c));
}

/** Parameters of a scheduler write, in `SCHEDULER_COLUMNS` order. */
export function schedulerValues(s: SchedulerRecord): unknown[] {
  return columnValues(SCHEDULER_COLUMNS, schedulerRow(s));
}

/** Parameters of an invocation write, in `INVOCATION_COLUMNS` order. */
export function invocationValues(i: InvocationRecord): unknown[] {
  return columnValues(INVOCATION_COLUMNS, invocationRow(i));
}

/** Parameters of a tool action write, in `TOOL_ACTION_COLUMNS` order; json columns as JSON text. */
export function toolActionValues(a: ToolActionRecord): unknown[] {
  const row = toolActionRow(a);
  return TOOL_ACTION_COLUMNS.map(([name, type]) => {
    const value = row[name as keyof ToolActionRow];
    return type === "json" && value !== null ? JSON.stringify(value) : value;
  });
}

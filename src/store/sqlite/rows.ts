import type { HistoryEvent } from "../../records/index.js";
import { parseStored } from "../errors.js";
import {
  type Cells,
  type ClockRow as ClockCells,
  type EventRow,
  rowMappings,
  type ToolActionSettleRow as SettleCells,
  type ToolActionRow as ToolActionCells,
  toolActionSettleRows,
} from "../sql/index.js";
import { unpackEvent } from "./packed-body.js";

export {
  type EventRow,
  type InvocationCloseRow,
  type InvocationRow,
  invocationCloseRow,
  invocationRecord,
  invocationRow,
  type SchedulerRow,
  schedulerRecord,
  schedulerRow,
} from "../sql/index.js";

// SQLite has no boolean or json type: a flag is 0 or 1, and JSON is kept as its text.
const CELLS: Cells<number, true> = {
  flag: (value) => (value ? 1 : 0),
  isSet: (cell) => cell !== 0,
  json: (value) => JSON.stringify(value),
  parse: <T>(cell: string, row: string) => parseStored(cell, row) as T,
};

/** A `clocks` row; also the named parameters that write it. */
export type ClockRow = ClockCells<number>;
/** A `tool_actions` row; `request`, `evidence_refs` and `resolution` hold JSON. */
export type ToolActionRow = ToolActionCells<true>;
/** The later-step columns of a `tool_actions` row. */
export type ToolActionSettleRow = SettleCells<true>;

export const { clockRow, clockRecord, toolActionRow, toolActionRecord } = rowMappings(CELLS);
/** A tool action's later-step columns (JSON as text). */
export const toolActionSettleRow = toolActionSettleRows(CELLS);

/** History row, packed or written before schema step 11, to committed event. */
export function historyEvent(r: EventRow): HistoryEvent {
  return unpackEvent(r.body, r, r.sequence, r.chain_digest);
}

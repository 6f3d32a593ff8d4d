import type { InvocationRecord, ToolActionRecord } from "../types.js";
import type { Cells, InvocationRow, ToolActionRow } from "./records.js";

/** What a close writes of an invocation (INVOCATION_CLOSE_COLUMNS and its id). */
export type InvocationCloseRow = Pick<
  InvocationRow,
  "id" | "state" | "ended_at" | "recovered_at" | "refusals" | "updated_at"
>;

/** What a tool action's later steps write (TOOL_ACTION_SETTLE_COLUMNS and its id). */
export type ToolActionSettleRow<AsText extends boolean> = Pick<
  ToolActionRow<AsText>,
  | "id"
  | "phase"
  | "settlement"
  | "failure_class"
  | "evidence_refs"
  | "unknown_reason"
  | "resolution"
  | "dispatched_at"
  | "settled_at"
  | "recovered_at"
  | "updated_at"
>;

/** The close's columns of an invocation, without building (and serialising) the rest of its row. */
export function invocationCloseRow(i: InvocationRecord): InvocationCloseRow {
  return {
    id: i.id,
    state: i.state,
    ended_at: i.endedAt ?? null,
    recovered_at: i.recoveredAt ?? null,
    refusals: i.refusals === undefined ? null : JSON.stringify(i.refusals),
    updated_at: i.updatedAt,
  };
}

/** The later steps' columns of a tool action, for a driver's cells; its request is not serialised. */
export function toolActionSettleRows<Flag, AsText extends boolean>(cells: Cells<Flag, AsText>) {
  return (a: ToolActionRecord): ToolActionSettleRow<AsText> => ({
    id: a.id,
    phase: a.phase,
    settlement: a.settlement ?? null,
    failure_class: a.failureClass ?? null,
    evidence_refs: a.evidenceRefs === undefined ? null : cells.json(a.evidenceRefs),
    unknown_reason: a.unknownReason ?? null,
    resolution: a.resolution === undefined ? null : cells.json(a.resolution),
    dispatched_at: a.dispatchedAt ?? null,
    settled_at: a.settledAt ?? null,
    recovered_at: a.recoveredAt ?? null,
    updated_at: a.updatedAt,
  });
}

/**
 * The later-step columns a step writes: those it sets. A tool action's fields are only ever added as it
 * moves on (claimed, dispatched, settled, resolved), so an absent one is absent in the stored row too,
 * and leaving it out spares rewriting the indexes that hold it (a dispatch leaves the settlement's).
 */
export function setColumns(row: object, columns: readonly string[]): string[] {
  return columns.filter((column) => (row as Record<string, unknown>)[column] !== null);
}

import assert from "node:assert/strict";
import type { ControlPlaneStore, InvocationRecord, ToolActionRecord } from "../../src/store/index.js";
import { invocationRow } from "../../src/store/sql/index.js";
import { invocation, toolAction } from "./records.js";

/** A closed and a running invocation, and tool actions in every phase, as schema step 4 stored them. */
const CLOSED = invocation({
  id: "inv-closed",
  state: "succeeded",
  startedAt: "2025-01-01T00:00:01.000Z",
  createdAt: "2025-01-01T00:00:01.000Z",
  updatedAt: "2025-01-01T00:00:09.000Z",
});
const RUNNING = invocation({
  id: "inv-running",
  startedAt: "2025-01-01T00:00:10.000Z",
  createdAt: "2025-01-01T00:00:10.000Z",
  updatedAt: "2025-01-01T00:00:10.000Z",
});
const RESOLUTION = {
  resolution: "effect_absent",
  note: "no request",
  resolvedAt: "2025-01-02T00:00:00.000Z",
} as const;
const ACTIONS: readonly ToolActionRecord[] = [
  toolAction(CLOSED, 1, {
    phase: "settled",
    settlement: "succeeded",
    createdAt: "2025-01-01T00:00:02.000Z",
    updatedAt: "2025-01-01T00:00:03.000Z",
  }),
  toolAction(CLOSED, 2, {
    phase: "settled",
    settlement: "indeterminate",
    resolution: RESOLUTION,
    createdAt: "2025-01-01T00:00:04.000Z",
    updatedAt: RESOLUTION.resolvedAt,
  }),
  toolAction(RUNNING, 1, {
    phase: "dispatched",
    createdAt: "2025-01-01T00:00:11.000Z",
    updatedAt: "2025-01-01T00:00:12.000Z",
  }),
  toolAction(RUNNING, 2, { createdAt: "2025-01-01T00:00:13.000Z", updatedAt: "2025-01-01T00:00:13.000Z" }),
];

function literal(value: unknown): string {
  if (value === undefined || value === null) return "NULL";
  if (typeof value === "number") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.replaceAll("'", "''")}'`;
}

function insert(table: string, row: Record<string, unknown>): string {
  const names = Object.keys(row);
  return `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map((n) => literal(row[n])).join(", ")});`;
}

/** The store's own invocation row without the columns schema steps 5, 6 and 8 added. */
function step4InvocationRow(i: InvocationRecord): Record<string, unknown> {
  const {
    started_at: _started,
    ended_at: _ended,
    refusals: _refusals,
    recovered_at: _recovered,
    ...row
  } = invocationRow(i);
  return row;
}

function toolActionRow(a: ToolActionRecord): Record<string, unknown> {
  return {
    id: a.id,
    invocation_id: a.invocationId,
    participant_address: a.participantAddress,
    tool_call_id: a.toolCallId,
    admission_ordinal: a.admissionOrdinal,
    request_digest: a.requestDigest,
    request: a.request,
    phase: a.phase,
    settlement: a.settlement,
    resolution: a.resolution,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** The INSERTs that fill a database left at schema step 4 (no time columns yet). */
export function step4RowsSql(): string {
  return [
    ...[CLOSED, RUNNING].map((i) => insert("invocations", step4InvocationRow(i))),
    ...ACTIONS.map((a) => insert("tool_actions", toolActionRow(a))),
  ].join("\n");
}

/**
 * After step 5: start is the row's creation, end the last update of a closed invocation; admission is
 * the claim's creation, dispatch and settlement the last update of a row still in that phase. A time the
 * old row no longer tells (dispatch of a settled action, settlement of a resolved one) stays unknown.
 */
export async function assertTimesUpgraded(store: ControlPlaneStore): Promise<void> {
  try {
    assert.deepEqual(await store.getInvocation(CLOSED.id), { ...CLOSED, endedAt: CLOSED.updatedAt });
    assert.deepEqual(await store.getInvocation(RUNNING.id), RUNNING);
    const [done, resolved, dispatched, admitted] = ACTIONS as [
      ToolActionRecord,
      ToolActionRecord,
      ToolActionRecord,
      ToolActionRecord,
    ];
    assert.deepEqual(await store.listToolActions({}), [
      { ...done, admittedAt: done.createdAt, settledAt: done.updatedAt },
      { ...resolved, admittedAt: resolved.createdAt },
      { ...dispatched, admittedAt: dispatched.createdAt, dispatchedAt: dispatched.updatedAt },
      { ...admitted, admittedAt: admitted.createdAt },
    ]);
  } finally {
    await store.close();
  }
}

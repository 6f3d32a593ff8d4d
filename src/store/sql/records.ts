import type {
  ApprovalRecord,
  ChainHead,
  HistoryEvent,
  HistoryEventDraft,
  OperatorChainHead,
  OperatorDecision,
  OperatorDecisionKind,
  ParticipantToolActionRequest,
  RefusedCall,
  ResolutionRecord,
  ResourceLedger,
  ToolActionPhase,
  ToolActionSettlement,
} from "../../records/index.js";
import { canonicalJson, DECISION_DETAILS } from "../../records/index.js";
import { parseStored } from "../errors.js";
import type {
  ActivityContinuation,
  ClockRecord,
  InvocationRecord,
  SchedulerLifecycle,
  SchedulerRecord,
  SchedulerStopReason,
  ToolActionRecord,
} from "../types.js";

/** A json column's cell: the value itself where the driver parses JSON (PostgreSQL), else its text (SQLite). */
export type JsonCell<T, AsText extends boolean> = AsText extends true ? string : T;

/** How a driver holds the two kinds of value it cannot take as they are: booleans and JSON. */
export interface Cells<Flag, AsText extends boolean> {
  flag(value: boolean): Flag;
  isSet(cell: Flag): boolean;
  json<T>(value: T): JsonCell<T, AsText>;
  /** `row` names the cell in the error when it is not JSON. */
  parse<T>(cell: JsonCell<T, AsText>, row: string): T;
}

/** A `clocks` row (bigint columns as numbers). */
export interface ClockRow<Flag> {
  clock_address: string;
  segment: number;
  tick: number;
  generation: number;
  paused: Flag;
  updated_at: string;
}

/** A `schedulers` row. */
export interface SchedulerRow {
  participant_address: string;
  policy_address: string;
  lifecycle: string;
  stop_reason: string | null;
  next_ordinal: number;
  attempts: number;
  cursor: number;
  segment: number;
  tick: number;
  /** The v2 continuation as JSON text; null for v1 schedules. */
  continuation: string | null;
  /** Null in rows written before schema step 7. */
  attempt_bound: number | null;
  stream_fingerprint: string | null;
  policy_digest?: string | null;
  /** The v3 resource ledger as JSON text; null for v1 and v2 schedules, absent before schema step 18. */
  resources?: string | null;
  /** Null in rows written before schema step 24 or never stamped. */
  execution_resets?: number | string | null;
  updated_at: string;
}

/** An `invocations` row. */
export interface InvocationRow {
  id: string;
  policy_address: string;
  participant_address: string;
  action_contract_address: string;
  observation_boundary_address: string;
  episode_id: string;
  segment: number;
  tick: number;
  ordinal: number;
  execution_scope_ref: string;
  execution_generation: number;
  observation_point: string;
  participant_implementation_ref: string;
  state: string;
  started_at: string | null;
  ended_at: string | null;
  recovered_at: string | null;
  /** Refusal counts per code as JSON text; null when there were none. */
  refusals: string | null;
  created_at: string;
  updated_at: string;
}

/** A `tool_actions` row; `request`, `evidence_refs` and `resolution` are json columns. */
export interface ToolActionRow<AsText extends boolean> {
  id: string;
  invocation_id: string;
  participant_address: string;
  tool_call_id: string;
  admission_ordinal: number;
  request_digest: string;
  request: JsonCell<ParticipantToolActionRequest, AsText>;
  phase: string;
  settlement: string | null;
  failure_class: string | null;
  evidence_refs: JsonCell<readonly string[], AsText> | null;
  unknown_reason: string | null;
  /** Null for every action but one raes-ts withheld with a reason (schema step 15). */
  withheld_reason: string | null;
  resolution: JsonCell<ResolutionRecord, AsText> | null;
  /** Null for every action but one held for approval (schema step 16); absent in an older store. */
  approval?: JsonCell<ApprovalRecord, AsText> | null;
  /** Null only in a row written before schema step 5 and not backfilled (never, after the step). */
  admitted_at: string | null;
  dispatched_at: string | null;
  settled_at: string | null;
  recovered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A `history_events` row; `body` is the exact JSON of the draft. */
export interface EventRow {
  sequence: number;
  participant_address: string;
  episode_id: string;
  action_instance_id: string;
  body: string;
  /** Null only in a row a writer without chaining left (never after schema step 13). */
  chain_digest?: string | null;
}

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
  | "withheld_reason"
  | "resolution"
  | "approval"
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
    refusals: refusalsText(i),
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
    withheld_reason: a.withheldReason ?? null,
    resolution: a.resolution === undefined ? null : cells.json(a.resolution),
    approval: a.approval === undefined ? null : cells.json(a.approval),
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

/** Record ↔ row mappings for one driver's cells. */
export function rowMappings<Flag, AsText extends boolean>(cells: Cells<Flag, AsText>) {
  const settleRow = toolActionSettleRows(cells);
  return {
    clockRow: (c: ClockRecord): ClockRow<Flag> => ({
      clock_address: c.clockAddress,
      segment: c.segment,
      tick: c.tick,
      generation: c.generation,
      paused: cells.flag(c.paused),
      updated_at: c.updatedAt,
    }),
    clockRecord: (r: ClockRow<Flag>): ClockRecord => ({
      clockAddress: r.clock_address,
      segment: r.segment,
      tick: r.tick,
      generation: r.generation,
      paused: cells.isSet(r.paused),
      updatedAt: r.updated_at,
    }),
    // The request is stored as JSON and has no argument fields.
    // The later-step columns come from the settle row, so a full row and a step's write agree.
    toolActionRow: (a: ToolActionRecord): ToolActionRow<AsText> => ({
      ...settleRow(a),
      invocation_id: a.invocationId,
      participant_address: a.participantAddress,
      tool_call_id: a.toolCallId,
      admission_ordinal: a.admissionOrdinal,
      request_digest: a.requestDigest,
      request: cells.json(a.request),
      admitted_at: a.admittedAt,
      created_at: a.createdAt,
    }),
    toolActionRecord: (r: ToolActionRow<AsText>): ToolActionRecord => ({
      id: r.id,
      invocationId: r.invocation_id,
      participantAddress: r.participant_address,
      toolCallId: r.tool_call_id,
      admissionOrdinal: r.admission_ordinal,
      requestDigest: r.request_digest,
      request: cells.parse(r.request, `tool_actions row ${r.id}: its request`),
      phase: r.phase as ToolActionPhase,
      ...(r.settlement === null ? {} : { settlement: r.settlement as ToolActionSettlement }),
      ...(r.failure_class === null ? {} : { failureClass: r.failure_class }),
      ...(r.evidence_refs === null
        ? {}
        : { evidenceRefs: cells.parse(r.evidence_refs, `tool_actions row ${r.id}: its evidence_refs`) }),
      ...(r.unknown_reason === null ? {} : { unknownReason: r.unknown_reason }),
      ...(r.withheld_reason === null || r.withheld_reason === undefined
        ? {}
        : { withheldReason: r.withheld_reason }),
      ...(r.resolution === null
        ? {}
        : { resolution: cells.parse(r.resolution, `tool_actions row ${r.id}: its resolution`) }),
      ...(r.approval === null || r.approval === undefined
        ? {}
        : { approval: cells.parse(r.approval, `tool_actions row ${r.id}: its approval`) }),
      admittedAt: r.admitted_at ?? r.created_at,
      ...(r.dispatched_at === null ? {} : { dispatchedAt: r.dispatched_at }),
      ...(r.settled_at === null ? {} : { settledAt: r.settled_at }),
      ...(r.recovered_at === null ? {} : { recoveredAt: r.recovered_at }),
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }),
  };
}

/** Scheduler record to row. */
export function schedulerRow(s: SchedulerRecord): SchedulerRow {
  return {
    participant_address: s.participantAddress,
    policy_address: s.policyAddress,
    lifecycle: s.lifecycle,
    stop_reason: s.stopReason ?? null,
    next_ordinal: s.nextOrdinal,
    attempts: s.attempts,
    cursor: s.cursor,
    segment: s.segment,
    tick: s.tick,
    continuation: s.activity === undefined ? null : JSON.stringify(s.activity),
    attempt_bound: s.maxActionAttempts ?? null,
    stream_fingerprint: s.streamFingerprint ?? null,
    policy_digest: s.policyDigest ?? null,
    // Canonical, so each log entry's text is the canonical JSON schema step 22's trigger copies out of it.
    resources: s.resources === undefined ? null : canonicalJson(s.resources),
    execution_resets: s.executionResets ?? null,
    updated_at: s.updatedAt,
  };
}

/** Scheduler row to record. */
export function schedulerRecord(r: SchedulerRow): SchedulerRecord {
  return {
    participantAddress: r.participant_address,
    policyAddress: r.policy_address,
    lifecycle: r.lifecycle as SchedulerLifecycle,
    ...(r.stop_reason === null ? {} : { stopReason: r.stop_reason as SchedulerStopReason }),
    nextOrdinal: r.next_ordinal,
    attempts: r.attempts,
    cursor: r.cursor,
    segment: r.segment,
    tick: r.tick,
    ...(r.continuation === null || r.continuation === undefined
      ? {}
      : { activity: JSON.parse(r.continuation) as ActivityContinuation }),
    ...(r.attempt_bound === null || r.attempt_bound === undefined
      ? {}
      : { maxActionAttempts: Number(r.attempt_bound) }),
    ...(r.stream_fingerprint === null || r.stream_fingerprint === undefined
      ? {}
      : { streamFingerprint: r.stream_fingerprint }),
    ...(r.policy_digest === null || r.policy_digest === undefined ? {} : { policyDigest: r.policy_digest }),
    ...(r.resources === null || r.resources === undefined
      ? {}
      : { resources: JSON.parse(r.resources) as ResourceLedger }),
    ...(r.execution_resets === null || r.execution_resets === undefined
      ? {}
      : { executionResets: Number(r.execution_resets) }),
    updatedAt: r.updated_at,
  };
}

/** Invocation record to row. */
export function invocationRow(i: InvocationRecord): InvocationRow {
  // The closing columns come from the close row, so an insert and a close write them alike.
  return {
    ...invocationCloseRow(i),
    policy_address: i.policyAddress,
    participant_address: i.participantAddress,
    action_contract_address: i.actionContractAddress,
    observation_boundary_address: i.observationBoundaryAddress,
    episode_id: i.episodeId,
    segment: i.segment,
    tick: i.tick,
    ordinal: i.ordinal,
    execution_scope_ref: i.executionScopeRef,
    execution_generation: i.executionGeneration,
    observation_point: i.observationPoint,
    participant_implementation_ref: i.participantImplementationRef,
    started_at: i.startedAt,
    created_at: i.createdAt,
  };
}

/**
 * The `refusals` column: the counts per code as JSON, or, when the invocation kept refused calls'
 * details, `{"counts": …, "calls": […]}` (no refusal code is `counts`).
 */
function refusalsText(i: InvocationRecord): string | null {
  if (i.refusals === undefined) return null;
  if (i.refusedCalls === undefined) return JSON.stringify(i.refusals);
  return JSON.stringify({ counts: i.refusals, calls: i.refusedCalls });
}

function refusalsOf(text: string): Pick<InvocationRecord, "refusals" | "refusedCalls"> {
  const value = JSON.parse(text) as Record<string, unknown>;
  if (typeof value.counts === "object" && value.counts !== null && Array.isArray(value.calls))
    return {
      refusals: value.counts as Record<string, number>,
      refusedCalls: value.calls as RefusedCall[],
    };
  return { refusals: value as Record<string, number> };
}

/** Invocation row to record. */
export function invocationRecord(r: InvocationRow): InvocationRecord {
  return {
    id: r.id,
    policyAddress: r.policy_address,
    participantAddress: r.participant_address,
    actionContractAddress: r.action_contract_address,
    observationBoundaryAddress: r.observation_boundary_address,
    episodeId: r.episode_id,
    segment: r.segment,
    tick: r.tick,
    ordinal: r.ordinal,
    executionScopeRef: r.execution_scope_ref,
    executionGeneration: r.execution_generation,
    observationPoint: r.observation_point,
    participantImplementationRef: r.participant_implementation_ref,
    state: r.state as InvocationRecord["state"],
    startedAt: r.started_at ?? r.created_at,
    ...(r.ended_at === null ? {} : { endedAt: r.ended_at }),
    ...(r.recovered_at === null ? {} : { recoveredAt: r.recovered_at }),
    ...(r.refusals === null ? {} : refusalsOf(r.refusals)),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The key columns a history row indexes its event by, beside its body. */
const KEY_COLUMNS = ["participant_address", "episode_id", "action_instance_id"] as const;

const LONE_SURROGATE_CHARACTERS = /\p{Cs}/gu;

/**
 * History row to committed event. When the row's key columns were read (PostgreSQL keeps the whole
 * event in its body, beside them), the event carries the columns' values: what a filter on them
 * (`raes history --participant`) finds is what the chain is checked against, so a column changed
 * outside the store fails `raes verify` as an edit of that event. A value equal but for lone
 * surrogates (which a UTF-8 column cannot hold) is the body's own; a key the body lacks stays absent.
 */
export function historyEvent(
  r: Pick<EventRow, "sequence" | "body" | "chain_digest"> & Partial<EventRow>,
): HistoryEvent {
  const draft = parseStored(r.body, `history_events row ${r.sequence}: its body`) as HistoryEventDraft;
  const event: Record<string, unknown> = { ...draft, sequence: Number(r.sequence) };
  for (const column of KEY_COLUMNS) {
    const stored = r[column];
    // A body written before a key was part of the event (schema step 1) is read as it was sealed.
    if (typeof stored !== "string" || !(column in event)) continue;
    const sealed = event[column];
    const same =
      typeof sealed === "string" &&
      (sealed === stored || sealed.replace(LONE_SURROGATE_CHARACTERS, "\uFFFD") === stored);
    // Spread over the body, a key keeps its place: an untouched event reads back as the same JSON text.
    if (!same) event[column] = stored;
  }
  return withChain(event as unknown as HistoryEvent, r);
}

/** The event with its row's `chain_digest` last, as `raes history --json` prints it; as it is without one. */
export function withChain(event: HistoryEvent, r: Pick<EventRow, "chain_digest">): HistoryEvent {
  return typeof r.chain_digest === "string" ? { ...event, chain_digest: r.chain_digest } : event;
}

/** A `history_chains` row. */
export interface ChainRow {
  participant_address: string;
  scenario_digest: string | null;
  manifest_digest: string | null;
  head_digest: string;
  head_sequence: number | string;
  events: number | string;
  backfilled_at: string | null;
}

/** The columns of `history_chains`, in the order the stores write them. */
export const CHAIN_COLUMNS = [
  "participant_address",
  "scenario_digest",
  "manifest_digest",
  "head_digest",
  "head_sequence",
  "events",
  "backfilled_at",
] as const;

/** A chain head from its row (PostgreSQL's bigint cells arrive as text). */
export function chainHead(r: ChainRow): ChainHead {
  return {
    participant_address: r.participant_address,
    scenario_digest: r.scenario_digest,
    manifest_digest: r.manifest_digest,
    head_digest: r.head_digest,
    head_sequence: Number(r.head_sequence),
    events: Number(r.events),
    backfilled_at: r.backfilled_at,
  };
}

/** An `operator_decisions` row. */
export interface DecisionRow {
  sequence: number | string;
  kind: string;
  subject: string;
  operator: string;
  note: string;
  decided_at: string;
  chain_digest: string;
  /** Schema step 21: null but for a `policy_change` or a resolve's resolution; absent in an older store read as it is. */
  policy_address?: string | null;
  previous_policy_digest?: string | null;
  policy_digest?: string | null;
  resolution?: string | null;
}

/** The columns of `operator_decisions`, in the order the stores write them. */
export const DECISION_COLUMNS = [
  "sequence",
  "kind",
  "subject",
  "operator",
  "note",
  "decided_at",
  "chain_digest",
  ...DECISION_DETAILS,
] as const;

/** A decision as its row's cells, null where it has no such member. */
export function decisionRow(d: OperatorDecision): Required<DecisionRow> {
  return {
    sequence: d.sequence,
    kind: d.kind,
    subject: d.subject,
    operator: d.operator,
    note: d.note,
    decided_at: d.decided_at,
    chain_digest: d.chain_digest,
    policy_address: d.policy_address ?? null,
    previous_policy_digest: d.previous_policy_digest ?? null,
    policy_digest: d.policy_digest ?? null,
    resolution: d.resolution ?? null,
  };
}

/** A decision from its row, as stored (a tampered kind is kept, for `raes verify` to find). */
export function operatorDecision(r: DecisionRow): OperatorDecision {
  return {
    kind: r.kind as OperatorDecisionKind,
    subject: r.subject,
    operator: r.operator,
    note: r.note,
    decided_at: r.decided_at,
    ...(r.policy_address == null ? {} : { policy_address: r.policy_address }),
    ...(r.previous_policy_digest == null ? {} : { previous_policy_digest: r.previous_policy_digest }),
    ...(r.policy_digest == null ? {} : { policy_digest: r.policy_digest }),
    ...(r.resolution == null ? {} : { resolution: r.resolution }),
    sequence: Number(r.sequence),
    chain_digest: r.chain_digest,
  };
}

/** An `operator_chain` row. */
export interface DecisionHeadRow {
  head_digest: string;
  head_sequence: number | string;
  decisions: number | string;
}

/** The operator chain's head from its row. */
export function decisionHead(r: DecisionHeadRow): OperatorChainHead {
  return {
    head_digest: r.head_digest,
    head_sequence: Number(r.head_sequence),
    decisions: Number(r.decisions),
  };
}

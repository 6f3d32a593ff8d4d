import type { HistoryEvent, HistoryEventDraft } from "../../history/index.js";
import type { ResolutionRecord } from "../../operations/index.js";
import type {
  ParticipantToolActionRequest,
  ToolActionPhase,
  ToolActionSettlement,
} from "../../port/index.js";
import type {
  ClockRecord,
  InvocationRecord,
  SchedulerLifecycle,
  SchedulerRecord,
  SchedulerStopReason,
  ToolActionRecord,
} from "../types.js";

/** A column and the SQL type its parameter is cast to. */
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
  ["resolution", "json"],
  ["created_at", "text"],
  ["updated_at", "text"],
];

/** A `clocks` row as the driver returns it (bigint parsed to number). */
export interface ClockRow {
  clock_address: string;
  segment: number;
  tick: number;
  generation: number;
  paused: boolean;
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
  created_at: string;
  updated_at: string;
}

/** A `tool_actions` row; its json columns arrive parsed. */
export interface ToolActionRow {
  id: string;
  invocation_id: string;
  participant_address: string;
  tool_call_id: string;
  admission_ordinal: number;
  request_digest: string;
  request: ParticipantToolActionRequest;
  phase: string;
  settlement: string | null;
  failure_class: string | null;
  evidence_refs: string[] | null;
  unknown_reason: string | null;
  resolution: ResolutionRecord | null;
  created_at: string;
  updated_at: string;
}

/** Parameters of a clock write, in `CLOCK_COLUMNS` order. */
export function clockValues(c: ClockRecord): unknown[] {
  return [c.clockAddress, c.segment, c.tick, c.generation, c.paused, c.updatedAt];
}

/** Clock row to record. */
export function clockRecord(r: ClockRow): ClockRecord {
  return {
    clockAddress: r.clock_address,
    segment: r.segment,
    tick: r.tick,
    generation: r.generation,
    paused: r.paused,
    updatedAt: r.updated_at,
  };
}

/** Parameters of a scheduler write, in `SCHEDULER_COLUMNS` order. */
export function schedulerValues(s: SchedulerRecord): unknown[] {
  return [
    s.participantAddress,
    s.policyAddress,
    s.lifecycle,
    s.stopReason ?? null,
    s.nextOrdinal,
    s.attempts,
    s.cursor,
    s.segment,
    s.tick,
    s.updatedAt,
  ];
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
    updatedAt: r.updated_at,
  };
}

/** Parameters of an invocation write, in `INVOCATION_COLUMNS` order. */
export function invocationValues(i: InvocationRecord): unknown[] {
  return [
    i.id,
    i.policyAddress,
    i.participantAddress,
    i.actionContractAddress,
    i.observationBoundaryAddress,
    i.episodeId,
    i.segment,
    i.tick,
    i.ordinal,
    i.executionScopeRef,
    i.executionGeneration,
    i.observationPoint,
    i.participantImplementationRef,
    i.state,
    i.createdAt,
    i.updatedAt,
  ];
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
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Tool action record to row; the request is stored as JSON and has no argument fields. */
export function toolActionRow(a: ToolActionRecord): ToolActionRow {
  return {
    id: a.id,
    invocation_id: a.invocationId,
    participant_address: a.participantAddress,
    tool_call_id: a.toolCallId,
    admission_ordinal: a.admissionOrdinal,
    request_digest: a.requestDigest,
    request: a.request,
    phase: a.phase,
    settlement: a.settlement ?? null,
    failure_class: a.failureClass ?? null,
    evidence_refs: a.evidenceRefs === undefined ? null : [...a.evidenceRefs],
    unknown_reason: a.unknownReason ?? null,
    resolution: a.resolution ?? null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** Parameters of a tool action write, in `TOOL_ACTION_COLUMNS` order; json columns as JSON text. */
export function toolActionValues(a: ToolActionRecord): unknown[] {
  const row = toolActionRow(a);
  return TOOL_ACTION_COLUMNS.map(([name, type]) => {
    const value = row[name as keyof ToolActionRow];
    return type === "json" && value !== null ? JSON.stringify(value) : value;
  });
}

/** Tool action row to record. */
export function toolActionRecord(r: ToolActionRow): ToolActionRecord {
  return {
    id: r.id,
    invocationId: r.invocation_id,
    participantAddress: r.participant_address,
    toolCallId: r.tool_call_id,
    admissionOrdinal: r.admission_ordinal,
    requestDigest: r.request_digest,
    request: r.request,
    phase: r.phase as ToolActionPhase,
    ...(r.settlement === null ? {} : { settlement: r.settlement as ToolActionSettlement }),
    ...(r.failure_class === null ? {} : { failureClass: r.failure_class }),
    ...(r.evidence_refs === null ? {} : { evidenceRefs: r.evidence_refs }),
    ...(r.unknown_reason === null ? {} : { unknownReason: r.unknown_reason }),
    ...(r.resolution === null ? {} : { resolution: r.resolution }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** History row to committed event; `body` is the exact JSON of the draft. */
export function historyEvent(r: { sequence: number; body: string }): HistoryEvent {
  return { ...(JSON.parse(r.body) as HistoryEventDraft), sequence: r.sequence };
}

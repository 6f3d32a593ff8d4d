import type { HistoryEvent, HistoryEventDraft } from "../../history/index.js";
import type { ResolutionRecord } from "../../operations/index.js";
import type { ToolActionPhase, ToolActionSettlement } from "../../port/index.js";
import type {
  ClockRecord,
  InvocationRecord,
  SchedulerLifecycle,
  SchedulerRecord,
  SchedulerStopReason,
  ToolActionRecord,
} from "../types.js";

/** A `clocks` row; also the named parameters that write it. */
export interface ClockRow {
  clock_address: string;
  segment: number;
  tick: number;
  generation: number;
  paused: number;
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

/** A `tool_actions` row; `request`, `evidence_refs` and `resolution` hold JSON. */
export interface ToolActionRow {
  id: string;
  invocation_id: string;
  participant_address: string;
  tool_call_id: string;
  admission_ordinal: number;
  request_digest: string;
  request: string;
  phase: string;
  settlement: string | null;
  failure_class: string | null;
  evidence_refs: string | null;
  unknown_reason: string | null;
  resolution: string | null;
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
}

/** Clock record to row. */
export function clockRow(c: ClockRecord): ClockRow {
  return {
    clock_address: c.clockAddress,
    segment: c.segment,
    tick: c.tick,
    generation: c.generation,
    paused: c.paused ? 1 : 0,
    updated_at: c.updatedAt,
  };
}

/** Clock row to record. */
export function clockRecord(r: ClockRow): ClockRecord {
  return {
    clockAddress: r.clock_address,
    segment: r.segment,
    tick: r.tick,
    generation: r.generation,
    paused: r.paused !== 0,
    updatedAt: r.updated_at,
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
    updatedAt: r.updated_at,
  };
}

/** Invocation record to row. */
export function invocationRow(i: InvocationRecord): InvocationRow {
  return {
    id: i.id,
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
    state: i.state,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
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
    request: JSON.stringify(a.request),
    phase: a.phase,
    settlement: a.settlement ?? null,
    failure_class: a.failureClass ?? null,
    evidence_refs: a.evidenceRefs === undefined ? null : JSON.stringify(a.evidenceRefs),
    unknown_reason: a.unknownReason ?? null,
    resolution: a.resolution === undefined ? null : JSON.stringify(a.resolution),
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
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
    request: JSON.parse(r.request),
    phase: r.phase as ToolActionPhase,
    ...(r.settlement === null ? {} : { settlement: r.settlement as ToolActionSettlement }),
    ...(r.failure_class === null ? {} : { failureClass: r.failure_class }),
    ...(r.evidence_refs === null ? {} : { evidenceRefs: JSON.parse(r.evidence_refs) as string[] }),
    ...(r.unknown_reason === null ? {} : { unknownReason: r.unknown_reason }),
    ...(r.resolution === null ? {} : { resolution: JSON.parse(r.resolution) as ResolutionRecord }),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** History draft to row parameters; the store assigns `sequence`. */
export function eventRow(e: HistoryEventDraft): Omit<EventRow, "sequence"> {
  return {
    participant_address: e.participant_address,
    episode_id: e.episode_id,
    action_instance_id: e.action_instance_id,
    body: JSON.stringify(e),
  };
}

/** History row to committed event. */
export function historyEvent(r: Pick<EventRow, "sequence" | "body">): HistoryEvent {
  return { ...(JSON.parse(r.body) as HistoryEventDraft), sequence: r.sequence };
}

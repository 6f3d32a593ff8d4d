import assert from "node:assert/strict";
import type { HistoryEventDraft } from "../../src/history/index.js";
import type { ParticipantToolActionRequest } from "../../src/port/index.js";
import type {
  ActivityContinuation,
  ClockRecord,
  ControlPlaneStore,
  InvocationCommit,
  InvocationRecord,
  SchedulerRecord,
  ToolActionRecord,
} from "../../src/store/index.js";

/** Test records for the store suites; each builder takes overrides over realistic defaults. */
export const P1 = "participant:green/participant-agent";
export const P2 = "participant:green/participant-reviewer";
export const POLICY = "policy:green/autonomous";
const T0 = "2025-01-01T00:00:00.000Z";

export function clock(overrides: Partial<ClockRecord> = {}): ClockRecord {
  return {
    clockAddress: "clock:shared",
    segment: 0,
    tick: 3,
    generation: 1,
    paused: false,
    updatedAt: T0,
    ...overrides,
  };
}

export function scheduler(overrides: Partial<SchedulerRecord> = {}): SchedulerRecord {
  return {
    participantAddress: P1,
    policyAddress: POLICY,
    lifecycle: "running",
    nextOrdinal: 1,
    attempts: 0,
    cursor: 0,
    segment: 0,
    tick: 0,
    updatedAt: T0,
    ...overrides,
  };
}

export function invocation(overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return {
    id: "inv-a",
    policyAddress: POLICY,
    participantAddress: P1,
    actionContractAddress: "action:green/evidence-loop",
    observationBoundaryAddress: "boundary:green/portal",
    episodeId: "episode-1",
    segment: 0,
    tick: 1,
    ordinal: 1,
    executionScopeRef: "scope:run-1",
    executionGeneration: 1,
    observationPoint: "point:after-action",
    participantImplementationRef: "impl:agent@1",
    state: "running",
    startedAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function request(
  inv: InvocationRecord,
  overrides: Partial<ParticipantToolActionRequest> = {},
): ParticipantToolActionRequest {
  return {
    toolCallId: "call-1",
    invocationActionInstanceId: inv.id,
    participantAddress: inv.participantAddress,
    episodeId: inv.episodeId,
    participantImplementationRef: inv.participantImplementationRef,
    toolAffordanceAddress: "affordance:green/portal-client",
    actionContractAddress: "action:green/portal-read",
    observationBoundaryAddress: "boundary:green/portal",
    targetAddresses: ["target:portal/records", "target:portal/audit"],
    executionScopeRef: inv.executionScopeRef,
    executionGeneration: inv.executionGeneration,
    ...overrides,
  };
}

export function toolAction(
  inv: InvocationRecord,
  ordinal: number,
  overrides: Partial<ToolActionRecord> = {},
): ToolActionRecord {
  const toolCallId = overrides.toolCallId ?? `call-${ordinal}`;
  return {
    id: `${inv.id}.tool-${ordinal}`,
    invocationId: inv.id,
    participantAddress: inv.participantAddress,
    toolCallId,
    admissionOrdinal: ordinal,
    requestDigest: `sha256:${inv.id}-${toolCallId}`,
    request: request(inv, { toolCallId }),
    phase: "admitted",
    admittedAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function event(
  inv: InvocationRecord,
  eventType: HistoryEventDraft["event_type"],
  overrides: Partial<HistoryEventDraft> = {},
): HistoryEventDraft {
  return {
    event_id: `${inv.id}.${eventType}`,
    event_type: eventType,
    timestamp: "2025-01-01T00:00:01.000Z",
    participant_address: inv.participantAddress,
    episode_id: inv.episodeId,
    action_instance_id: inv.id,
    action_contract_address: inv.actionContractAddress,
    observation_boundary_address: inv.observationBoundaryAddress,
    lifecycle_phase: "executing",
    phase_realization: "runtime_mediated",
    actor_provenance: "participant",
    post_state_digest: `sha256:${inv.id}`,
    temporal_contexts: [
      {
        temporal_contract_id: "constraint:cadence",
        time_domain: "simulation_time",
        clock_authority: "clock:shared",
        event_points: ["submit", "start", "end", "observed"],
        observation_point: inv.observationPoint,
        reset_boundary: "clock:shared:segment=0",
      },
    ],
    execution_scope_ref: inv.executionScopeRef,
    execution_generation: inv.executionGeneration,
    ...(eventType === "observation_emitted"
      ? {
          observation_status: "terminal" as const,
          action_result: {
            status: "succeeded",
            participant_address: inv.participantAddress,
            episode_id: inv.episodeId,
            action_instance_id: inv.id,
            action_contract_address: inv.actionContractAddress,
            observation_point: inv.observationPoint,
          },
        }
      : {}),
    ...overrides,
  };
}

/** The outer triple of an invocation. */
export function triple(inv: InvocationRecord): HistoryEventDraft[] {
  return [
    event(inv, "action_attempted"),
    event(inv, "state_transition_recorded"),
    event(inv, "observation_emitted"),
  ];
}

/** A successful close of `inv` settling `actions`, with the outer triple. */
export function closeCommit(
  inv: InvocationRecord,
  actions: readonly ToolActionRecord[] = [],
  sched: SchedulerRecord = scheduler({
    participantAddress: inv.participantAddress,
    nextOrdinal: inv.ordinal + 1,
  }),
): InvocationCommit {
  return {
    invocation: { ...inv, state: "succeeded", updatedAt: "2025-01-01T00:00:02.000Z" },
    toolActions: actions,
    events: triple(inv),
    scheduler: sched,
  };
}

/** A v2 continuation as the scheduler commits it. */
export const SAMPLE_CONTINUATION: ActivityContinuation = {
  lifecycle_state: "running",
  time_segment: 1,
  episode_id: "participant.behavior.p1-autonomous-1",
  next_tick: 60,
  next_action_index: 2,
  occurrence_ordinal: 3,
  current_retry: 1,
  burst_size: 2,
  burst_position: 1,
  next_timing_disposition: "next_opening",
  attempted_actions: 5,
  succeeded_actions: 3,
  failed_actions: 2,
  completed_candidate_ids: ["portal_login", "check_status"],
  candidate_cooldown_until: { portal_login: 60, check_status: 90 },
  last_candidate_id: "portal_login",
  last_action_instance_id: "p:a:episode=e:segment=1:occurrence=2:retry=0",
};

/** After a v2 → v3 upgrade: the saved scheduler reads back with a zero watermark and can move it. */
export async function assertSchedulerUpgraded(
  store: ControlPlaneStore,
  saved: SchedulerRecord,
): Promise<void> {
  try {
    assert.deepEqual(await store.getScheduler(saved.participantAddress, saved.policyAddress), {
      ...saved,
      segment: 0,
      tick: 0,
    });
    const moved = { ...saved, segment: 1, tick: 6 };
    await store.saveScheduler(moved);
    assert.deepEqual(await store.listSchedulers(), [moved]);
    // The step-4 continuation column round-trips a v2 continuation on the upgraded database.
    const continued: SchedulerRecord = { ...moved, activity: SAMPLE_CONTINUATION };
    await store.saveScheduler(continued);
    assert.deepEqual(await store.getScheduler(saved.participantAddress, saved.policyAddress), continued);
    // The step-7 columns: the attempt bound and the control's one-way fingerprint.
    const identified: SchedulerRecord = {
      ...continued,
      maxActionAttempts: 120,
      streamFingerprint: "fedcba9876543210fedcba9876543210",
    };
    await store.saveScheduler(identified);
    assert.deepEqual(await store.getScheduler(saved.participantAddress, saved.policyAddress), identified);
  } finally {
    await store.close();
  }
}

/** An event as read, without the chain digest every store adds: what a body round trip compares. */
export function unchainedOne<T extends object>(event: T): Omit<T, "chain_digest"> {
  const { chain_digest: _chain, ...rest } = event as T & { chain_digest?: unknown };
  return rest;
}

/** Events as read, without their chain digests. */
export function unchained<T extends object>(events: readonly T[]): Omit<T, "chain_digest">[] {
  return events.map(unchainedOne);
}

/** A JSON line of history without its `chain_digest` (the last key), as a body round trip compares it. */
export function unchainedLine(line: string): string {
  return JSON.stringify(unchainedOne(JSON.parse(line) as object));
}

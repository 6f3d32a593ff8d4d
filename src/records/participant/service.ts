/**
 * One participant's execution service and episodes, as the store keeps them (docs/guide/operations.md,
 * "Controlling one participant"). The store is the source of truth: `raes control` from another process
 * changes the record, and the runtime that schedules the participant honours it at its next advance.
 *
 * The field names are RAES's: `participant-execution-service-state/v1` (ADR-092 §8) for the service, and
 * `participant-episode-state/v1` with its history events (ADR-013, ADR-054 §4) for the episodes.
 */

/** RAES's `participant-execution-service-state/v1` schema tag. */
export const EXECUTION_SERVICE_STATE_SCHEMA = "participant-execution-service-state/v1";
/** RAES's `participant-episode-state/v1` schema tag. */
export const EPISODE_STATE_SCHEMA = "participant-episode-state/v1";

/** RAES's execution-control actions (`participant-execution-control/v1`). */
export const ExecutionControlAction = {
  /** A stopped service starts accepting work. */
  start: "start",
  /** A running service stops accepting work; its scheduler waits. */
  pause: "pause",
  /** A paused service accepts work again. */
  resume: "resume",
  /** The service stops accepting work and waits, bounded, for its in-flight work: quiescent. */
  drain: "drain",
  /** A quiescent service runs again under the next generation, its schedules' counters cleared. */
  reset: "reset",
  /** A quiescent service ends for good and releases its resources. */
  teardown: "teardown",
} as const;
/** An execution-control action. */
export type ExecutionControlAction = (typeof ExecutionControlAction)[keyof typeof ExecutionControlAction];

/**
 * RAES's execution lifecycle. raes-ts reads back the stable ones and `draining`, the one in-between state it
 * passes through: a drain that waits for open invocations (RAES's reference passes through none; its
 * contract ties `draining` to the lifecycle).
 */
export type ExecutionLifecycle =
  | "stopped"
  | "starting"
  | "running"
  | "pausing"
  | "paused"
  | "draining"
  | "quiescent"
  | "resetting"
  | "tearing_down"
  | "terminated"
  | "failed";

/** RAES's typed readback of one execution service, field for field. */
export interface ParticipantExecutionServiceState {
  readonly schema_version: typeof EXECUTION_SERVICE_STATE_SCHEMA;
  /** raes-ts gives each participant its own scope: `<policy address>:<participant address>`. */
  readonly execution_scope_ref: string;
  readonly policy_address: string;
  readonly desired_lifecycle: ExecutionLifecycle;
  readonly observed_lifecycle: ExecutionLifecycle;
  /** The execution generation: a control must name it, a reset (or a clock reset) increments it. */
  readonly generation: number;
  readonly observed_generation: number;
  readonly health: "healthy" | "degraded" | "unhealthy" | "unknown";
  readonly readiness: "ready" | "not_ready" | "unknown";
  readonly accepting_new_work: boolean;
  readonly draining: boolean;
  readonly quiescent: boolean;
  readonly resources_released: boolean;
  readonly policy_digest: string;
  readonly binding_digest: string;
  readonly time_declaration_digest: string;
  readonly scheduler_state_refs: readonly string[];
  readonly resource_budget_state_refs: readonly string[];
  readonly capacity: number;
  readonly reserved: number;
  readonly in_flight: number;
  readonly last_transition_ref: string;
  readonly pacing_deviation_refs: readonly string[];
  readonly evidence_refs: readonly string[];
}

/** RAES's participant episode status. */
export type EpisodeStatus = "initializing" | "running" | "terminated";
/** RAES's episode terminal reasons. */
export type EpisodeTerminalReason = "completed" | "timed_out" | "truncated" | "interrupted";
/** RAES's episode control actions. */
export type EpisodeControlAction = "initialize" | "reset" | "restart";
/** RAES's episode history event types. */
export type EpisodeEventType =
  | "episode_initialized"
  | "episode_running"
  | "episode_completed"
  | "episode_timed_out"
  | "episode_truncated"
  | "episode_interrupted"
  | "episode_reset"
  | "episode_restarted";

/** RAES's `participant-episode-state/v1`: the participant's current episode. */
export interface ParticipantEpisodeState {
  readonly state_schema_version: typeof EPISODE_STATE_SCHEMA;
  readonly participant_address: string;
  readonly episode_id: string;
  /** 0 for the first episode, one more per reset or restart. */
  readonly sequence_number: number;
  readonly status: EpisodeStatus;
  readonly terminal_reason: EpisodeTerminalReason | null;
  readonly initialized_at: string;
  readonly updated_at: string;
  readonly terminated_at: string | null;
  readonly last_control_action: EpisodeControlAction;
  readonly previous_episode_id: string | null;
}

/** One RAES participant episode history event. */
export interface ParticipantEpisodeEvent {
  readonly event_type: EpisodeEventType;
  readonly timestamp: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly sequence_number: number;
  readonly terminal_reason: EpisodeTerminalReason | null;
  readonly control_action: EpisodeControlAction | null;
  readonly details: Readonly<Record<string, string>>;
}

/** One participant's execution service and episodes, durably: what `raes control` and the status view read. */
export interface ParticipantServiceRecord {
  readonly participantAddress: string;
  /** 1 when first written, then one more per write: a write names the revision it replaces (compare-and-set). */
  readonly revision: number;
  readonly service: ParticipantExecutionServiceState;
  /**
   * The controls the runtime's manifest allows (`supported_execution_control_actions` when it declares
   * `supports_execution_control`, else none), written by the runtime so another process can check them.
   */
  readonly controlActions: readonly ExecutionControlAction[];
  /**
   * The shared clock's generation this record has followed: a clock reset (a higher clock generation)
   * moves the service to the next generation and the episode to the clock's new segment.
   */
  readonly clockGeneration: number;
  /** The current episode; null before the first is initialized. */
  readonly episode: ParticipantEpisodeState | null;
  /** Every episode event of this participant, oldest first. */
  readonly episodeHistory: readonly ParticipantEpisodeEvent[];
  readonly updatedAt: string;
}

/**
 * How many execution resets (RAES's `reset` control) the service has had: the generation moves by one
 * per execution reset and by one per clock reset it follows, and `clockGeneration` counts the latter
 * from the generation the service started at. A schedule that has honoured fewer clears its counters.
 */
export function executionResetsOf(record: ParticipantServiceRecord): number {
  return record.service.generation - record.clockGeneration;
}

/** Refusals of execution control and episode control; a refusal writes nothing. */
export const ParticipantControlCode = {
  /** RAES's code: the participant has no execution service (not scheduled under this store). */
  not_found: "runtime.participant-execution-not-found",
  /** RAES's code: `expected_generation` is not the service's current generation. */
  stale_generation: "runtime.participant-execution-stale-generation",
  /** RAES's code: the action does not apply to the service's observed lifecycle. */
  transition_invalid: "runtime.participant-execution-transition-invalid",
  /** RAES's code: a drain's in-flight work did not finish within its timeout. */
  drain_timeout: "runtime.participant-execution-drain-timeout",
  /** The manifest does not declare `supports_execution_control` (RAES refuses such an autonomous manifest). */
  control_unsupported: "runtime.participant-execution-control-unsupported",
  /** The action is not in the manifest's `supported_execution_control_actions`. */
  action_unsupported: "runtime.participant-execution-action-unsupported",
  /** RAES's code: a clock reset with autonomous participants needs coordinated participant reset support. */
  coordinated_reset_unsupported: "runtime.coordinated-participant-reset-unsupported",
  /** RAES's code for a refused episode control (no live episode, already terminated, ...): the message says which. */
  episode_rejected: "runtime.participant-runtime.rejected",
  /** Another control changed the record between its read and this write; read and try again. */
  changed_concurrently: "runtime.participant-execution-changed",
} as const;
/** A participant control refusal code. */
export type ParticipantControlCode = (typeof ParticipantControlCode)[keyof typeof ParticipantControlCode];

/** A control's answer: the record to write, or a refusal with its code and message. */
export type ControlStep<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: ParticipantControlCode; readonly message: string };

function refused<T>(code: ParticipantControlCode, message: string): ControlStep<T> {
  return { ok: false, code, message };
}

/** The lifecycle, readiness and admission each successful action ends in, as RAES's readback must prove. */
const OBSERVATION: Readonly<
  Record<ExecutionControlAction, { lifecycle: ExecutionLifecycle; ready: boolean; from: readonly string[] }>
> = {
  start: { lifecycle: "running", ready: true, from: ["stopped"] },
  pause: { lifecycle: "paused", ready: false, from: ["running"] },
  resume: { lifecycle: "running", ready: true, from: ["paused"] },
  // From `draining` too: a drain whose process ended while it waited is finished by the next drain.
  drain: { lifecycle: "quiescent", ready: false, from: ["running", "paused", "quiescent", "draining"] },
  reset: { lifecycle: "running", ready: true, from: ["quiescent"] },
  teardown: { lifecycle: "terminated", ready: false, from: ["quiescent"] },
};

/** The most evidence refs a service keeps (the newest); RAES keeps all, raes-ts bounds the record. */
export const MAX_SERVICE_EVIDENCE_REFS = 64;

/**
 * RAES's execution-control transition: the generation fence first, then the lifecycle table
 * (tools/record-raes-control.py records RAES's answers for every lifecycle and action). `inFlight`
 * is the work still open when it is applied; `revision` names the new transition and its evidence.
 */
export function controlTransition(
  state: ParticipantExecutionServiceState,
  action: ExecutionControlAction,
  expectedGeneration: number,
  revision: number,
  inFlight = 0,
): ControlStep<ParticipantExecutionServiceState> {
  if (state.generation !== expectedGeneration)
    return refused(
      ParticipantControlCode.stale_generation,
      `expected generation ${expectedGeneration}, but the service is at generation ${state.generation}`,
    );
  const observed = OBSERVATION[action];
  if (!observed.from.includes(state.observed_lifecycle))
    return refused(
      ParticipantControlCode.transition_invalid,
      `cannot ${action} a ${state.observed_lifecycle} execution service`,
    );
  const generation = state.generation + (action === "reset" ? 1 : 0);
  const evidence = `evidence:${state.execution_scope_ref}:${action}:revision-${revision}`;
  return {
    ok: true,
    value: {
      ...state,
      desired_lifecycle: observed.lifecycle,
      observed_lifecycle: observed.lifecycle,
      generation,
      observed_generation: generation,
      readiness: observed.ready ? "ready" : "not_ready",
      accepting_new_work: observed.ready,
      draining: false,
      quiescent: inFlight === 0,
      reserved: 0,
      in_flight: inFlight,
      resources_released: action === "teardown",
      last_transition_ref: `operation:${state.execution_scope_ref}:${action}:revision-${revision}`,
      evidence_refs: [...state.evidence_refs.filter((ref) => ref !== evidence), evidence].slice(
        -MAX_SERVICE_EVIDENCE_REFS,
      ),
    },
  };
}

/**
 * The in-between state a drain stores before it waits for open invocations (RAES's contract: `draining`
 * true exactly when the observed lifecycle is `draining`; not accepting, not ready, desired `quiescent`), so
 * no process admits new work while it waits; the drain's end writes `quiescent` over it (`controlTransition`).
 * `inFlight` is the work open when it is written. The fence and the lifecycle table are checked first.
 */
export function drainingState(
  state: ParticipantExecutionServiceState,
  expectedGeneration: number,
  revision: number,
  inFlight: number,
  until: Date,
): ControlStep<ParticipantExecutionServiceState> {
  const checked = controlTransition(state, "drain", expectedGeneration, revision, inFlight);
  if (!checked.ok) return checked;
  return {
    ok: true,
    value: {
      ...state,
      desired_lifecycle: "quiescent",
      observed_lifecycle: "draining",
      readiness: "not_ready",
      accepting_new_work: false,
      draining: true,
      quiescent: inFlight === 0,
      reserved: 0,
      in_flight: inFlight,
      // What it drains from and until when it waits: the drain's end, or any reader once it is
      // abandoned (`abandonedDrain`), needs both to put the service back.
      last_transition_ref: `operation:${state.execution_scope_ref}:draining:from-${state.observed_lifecycle}:until-${until.toISOString()}:revision-${revision}`,
    },
  };
}

/**
 * How long past its deadline a stored `draining` waits before any reader puts it back: the drain's own
 * process does so at the deadline, so the others leave it that long to finish first.
 */
export const ABANDONED_DRAIN_GRACE_MS = 1000;

const DRAINING_REF =
  /:draining:from-(running|paused):until-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z):revision-\d+$/;

/**
 * The record a drain nobody finished leaves behind, put back (docs/guide/operations.md, "Controlling one
 * participant"): a `draining` service whose drain's deadline passed more than `ABANDONED_DRAIN_GRACE_MS`
 * ago, so the process that waited (`raes control drain`, the console) ended without writing its end. RAES's
 * drain is one call whose answer is its end state, and a drain that does not finish in time leaves the
 * service as it was (`runtime.participant-execution-drain-timeout`); an unanswered drain is the same: the
 * service is back in the lifecycle it drained from, under the same generation, with no decision recorded.
 * Undefined while the drain may still finish, or for any other record.
 */
export function abandonedDrain(
  record: ParticipantServiceRecord,
  nowMs: number,
): ParticipantServiceRecord | undefined {
  const { service } = record;
  if (service.observed_lifecycle !== "draining") return undefined;
  const match = DRAINING_REF.exec(service.last_transition_ref);
  if (!match) return undefined;
  const from = match[1] as "running" | "paused";
  if (nowMs <= Date.parse(match[2] as string) + ABANDONED_DRAIN_GRACE_MS) return undefined;
  const revision = record.revision + 1;
  const running = from === "running";
  return {
    ...record,
    revision,
    service: {
      ...service,
      desired_lifecycle: from,
      observed_lifecycle: from,
      readiness: running ? "ready" : "not_ready",
      accepting_new_work: running,
      draining: false,
      quiescent: true,
      reserved: 0,
      in_flight: 0,
      last_transition_ref: `operation:${service.execution_scope_ref}:drain-abandoned:revision-${revision}`,
    },
    updatedAt: new Date(nowMs).toISOString(),
  };
}

/** Whether the service admits new work now (RAES: running, accepting and ready). */
export function acceptsWork(record: ParticipantServiceRecord): boolean {
  const { service, episode } = record;
  return (
    service.observed_lifecycle === "running" &&
    service.accepting_new_work &&
    service.readiness === "ready" &&
    (episode === null || episode.status === "running")
  );
}

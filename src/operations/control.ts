import {
  abandonedDrain,
  controlTransition,
  drainingState,
  type EpisodeStep,
  type EpisodeTerminalReason,
  ExecutionControlAction,
  initializeEpisode,
  nextEpisode,
  type OperatorDecisionDraft,
  OperatorDecisionKind,
  ParticipantControlCode,
  type ParticipantEpisodeState,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
  serviceReadback,
  terminateEpisode,
  withPacingHealth,
} from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import { decisionNote, decisionTime, operatorIdentity } from "./operator.js";
import { isDeadLocalOwner } from "./owner.js";

/** A lifecycle control of one participant's execution service, as `raes control` and the web console send it. */
export interface ControlRequest {
  readonly participant: string;
  readonly action: ExecutionControlAction;
  /** The generation the operator saw; a different current one is refused (RAES's fence). Default: the current one. */
  readonly expectedGeneration?: number;
  /** Who decides (else `RAES_OPERATOR`, else `USER@HOST`). */
  readonly operator?: string;
  readonly note?: string;
  /** How long a drain waits for the participant's open invocations to end (default 30000 ms). */
  readonly drainTimeoutMs?: number;
}

/** What a control did: the service as it now stands, or why nothing was written. */
export type ControlOutcome =
  | {
      readonly ok: true;
      readonly participant: string;
      readonly action: ExecutionControlAction;
      readonly service: ParticipantExecutionServiceState;
    }
  | {
      readonly ok: false;
      readonly participant: string;
      readonly action: ExecutionControlAction;
      readonly code: ParticipantControlCode;
      readonly message: string;
      /** The service as it stands, when the participant has one. */
      readonly service?: ParticipantExecutionServiceState;
      /**
       * On a drain timeout: the runtime that opened the invocations still open is gone (the participant
       * has no live lease), so they stay open until a runtime on the store recovers them.
       */
      readonly ownerGone?: true;
    };

/** A participant's execution service as every reader shows it. */
export interface ServiceReadback {
  readonly participantAddress: string;
  readonly service: ParticipantExecutionServiceState;
}

/**
 * Each participant's execution service as every readback shows it now (the status view, the console,
 * `raes control`): a drain abandoned by its process put back, the stored pacing deviations joined
 * (`serviceReadback`). Of `participant` only when given (none when it has no service), else of all.
 */
export async function readParticipantServices(
  store: ControlPlaneStore,
  participant?: string,
  nowMs: number = Date.now(),
): Promise<ServiceReadback[]> {
  const records =
    participant === undefined
      ? await store.listParticipantServices()
      : [await store.getParticipantService(participant)].filter((r) => r !== undefined);
  if (records.length === 0) return [];
  const deviations = await store.listPacingDeviations(participant);
  return records.map((record) => ({
    participantAddress: record.participantAddress,
    service: serviceReadback(
      record,
      deviations.filter((d) => d.participantAddress === record.participantAddress),
      nowMs,
    ),
  }));
}

/** Injected time for `controlParticipant` (tests, the manager's clock). */
export interface ControlClock {
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
}

const ATTEMPTS = 3;
const DRAIN_POLL_MS = 50;
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

function refusal(
  request: ControlRequest,
  code: ParticipantControlCode,
  message: string,
  service?: ParticipantExecutionServiceState,
): Extract<ControlOutcome, { ok: false }> {
  return {
    ok: false,
    participant: request.participant,
    action: request.action,
    code,
    message,
    ...(service ? { service } : {}),
  };
}

/**
 * Applies one execution control to a participant's service in the store (docs/guide/operations.md,
 * "Controlling one participant"): the manifest's allowed actions first, then RAES's generation fence and
 * lifecycle table. The new state and the operator decision are one transaction; a refusal writes
 * nothing. The runtime that schedules the participant honours the new state at its next advance, from
 * this process or another. A drain waits, bounded, until the participant has no open invocation.
 *
 * @example
 * const outcome = await controlParticipant(store, { participant: "participant.behavior.participant-agent", action: "pause", operator: "alice" });
 * if (!outcome.ok) console.error(outcome.code, outcome.message);
 */
export async function controlParticipant(
  store: ControlPlaneStore,
  request: ControlRequest,
  clock: ControlClock = {},
): Promise<ControlOutcome> {
  const outcome = await applyControl(store, request, clock);
  // A refusal shows the service as it stands, read back as the status view reads it.
  if (outcome.ok || outcome.service === undefined) return outcome;
  return { ...outcome, service: await readback(store, request.participant, outcome.service) };
}

/**
 * The service as every readback shows it (`participantExecutionState`, the status view, the console):
 * the stored state with the participant's stored pacing deviations joined in, so a service whose pacing
 * was lost reads `degraded` here too (docs/raes-mapping.md, "Pacing and clock jumps").
 */
async function readback(
  store: ControlPlaneStore,
  participant: string,
  service: ParticipantExecutionServiceState,
): Promise<ParticipantExecutionServiceState> {
  return withPacingHealth(service, await store.listPacingDeviations(participant));
}

async function applyControl(
  store: ControlPlaneStore,
  request: ControlRequest,
  clock: ControlClock,
): Promise<ControlOutcome> {
  const operator = operatorIdentity(request.operator);
  const note = decisionNote(request.note);
  const now = clock.now ?? (() => new Date());
  const sleep = clock.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  if (!Object.values(ExecutionControlAction).includes(request.action))
    return refusal(
      request,
      ParticipantControlCode.action_unsupported,
      `unknown control '${String(request.action)}'`,
    );
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    let record = await store.getParticipantService(request.participant);
    if (!record)
      return refusal(
        request,
        ParticipantControlCode.not_found,
        `participant '${request.participant}' has no execution service in this store`,
      );
    // A drain whose process ended without finishing it is put back first, as its timeout would have.
    const putBack = abandonedDrain(record, now().getTime());
    if (putBack) {
      if (!(await store.saveParticipantService(putBack))) continue;
      record = putBack;
    }
    const gate = gateRefusal(request, record);
    if (gate) return gate;
    const expected = request.expectedGeneration ?? record.service.generation;
    let current = record;
    if (request.action === "drain") {
      const waited = await drained(store, request, record, expected, now, sleep);
      if (waited === "changed") continue;
      if (!("revision" in waited)) return waited;
      current = waited;
    }
    const step = controlTransition(current.service, request.action, expected, current.revision + 1);
    if (!step.ok) return refusal(request, step.code, step.message, current.service);
    const decision: OperatorDecisionDraft = {
      kind: OperatorDecisionKind[`execution_${request.action}`],
      subject: request.participant,
      operator,
      note,
      decided_at: decisionTime(now()),
    };
    const next: ParticipantServiceRecord = {
      ...current,
      revision: current.revision + 1,
      service: step.value,
      updatedAt: decision.decided_at,
    };
    if (await store.saveParticipantService(next, decision))
      return {
        ok: true,
        participant: request.participant,
        action: request.action,
        service: await readback(store, request.participant, step.value),
      };
  }
  return refusal(
    request,
    ParticipantControlCode.changed_concurrently,
    `participant '${request.participant}' was changed by another control meanwhile; read its state and try again`,
  );
}

/** The manifest's gate, as the runtime wrote it into the record. */
function gateRefusal(request: ControlRequest, record: ParticipantServiceRecord): ControlOutcome | undefined {
  if (record.controlActions.length === 0)
    return refusal(
      request,
      ParticipantControlCode.control_unsupported,
      `the runtime's manifest does not declare supports_execution_control for '${request.participant}'`,
      record.service,
    );
  if (!record.controlActions.includes(request.action))
    return refusal(
      request,
      ParticipantControlCode.action_unsupported,
      `the runtime's manifest does not list '${request.action}' in supported_execution_control_actions`,
      record.service,
    );
  return undefined;
}

/**
 * A drain's wait (docs/guide/operations.md, "Controlling one participant"). A running or paused service is
 * first stored `draining` (RAES's in-between lifecycle: not accepting work), so no process opens a new
 * invocation while the drain waits: every open is admitted in its own transaction only under the service
 * record it read. Then it waits, bounded, until the participant has no open invocation, and answers the
 * record to write `quiescent` over; or the refusal when the fence or lifecycle refuses, or the timeout
 * passes first (RAES's drain timeout: the service is put back as it was, so the refusal leaves no trace);
 * or "changed" when another write came between its read and its write. The stored `draining` names its
 * deadline, so if this process ends while it waits, any reader puts the service back after it
 * (`abandonedDrain`) instead of leaving it draining for good.
 */
async function drained(
  store: ControlPlaneStore,
  request: ControlRequest,
  record: ParticipantServiceRecord,
  expected: number,
  now: () => Date,
  sleep: (ms: number) => Promise<void>,
): Promise<ParticipantServiceRecord | ControlOutcome | "changed"> {
  const open = async () => (await store.listOpenInvocations(request.participant)).length;
  const lifecycle = record.service.observed_lifecycle;
  const timeoutMs = request.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const deadline = now().getTime() + timeoutMs;
  const step = drainingState(record.service, expected, record.revision + 1, await open(), new Date(deadline));
  if (!step.ok) return refusal(request, step.code, step.message, record.service);
  let current = record;
  if (lifecycle === "running" || lifecycle === "paused") {
    current = {
      ...record,
      revision: record.revision + 1,
      service: step.value,
      updatedAt: decisionTime(now()),
    };
    if (!(await store.saveParticipantService(current))) return "changed";
  }
  for (;;) {
    const count = await open();
    if (count === 0) return current;
    if (now().getTime() >= deadline) {
      if (current !== record)
        await store.saveParticipantService({
          ...record,
          revision: current.revision + 1,
          updatedAt: decisionTime(now()),
        });
      const still = `${count} invocation(s) of '${request.participant}' still open after ${timeoutMs} ms`;
      if (!(await ownerGone(store, request.participant, now().getTime())))
        return refusal(request, ParticipantControlCode.drain_timeout, still, record.service);
      return {
        ...refusal(
          request,
          ParticipantControlCode.drain_timeout,
          `${still}, left by a runtime that is gone (the participant has no live lease): only a runtime's recovery settles them (nothing is retried), so start raes run on this store again with the same scenario, manifest and runtime, then drain again`,
          record.service,
        ),
        ownerGone: true,
      };
    }
    await sleep(DRAIN_POLL_MS);
  }
}

/**
 * Whether the runtime that holds a participant is gone: no lease, an expired one, or one whose owner is
 * provably dead on this host. Its open invocations then wait for recovery (docs/guide/operations.md).
 */
async function ownerGone(store: ControlPlaneStore, participant: string, nowMs: number): Promise<boolean> {
  const lease = await store.getLease(participant);
  return lease === undefined || lease.expiresAt <= nowMs || isDeadLocalOwner(lease.ownerId);
}

/** An episode control of one participant (ADR-013): what `RuntimeManager`'s episode methods send. */
export type EpisodeRequest = {
  readonly participant: string;
  readonly operator?: string;
  readonly note?: string;
} & (
  | { readonly action: "initialize"; readonly episodeId?: string }
  | { readonly action: "reset" | "restart"; readonly episodeId?: string; readonly reason?: string }
  | {
      readonly action: "terminate";
      readonly terminalReason?: EpisodeTerminalReason;
      readonly detail?: string;
    }
);

/** What an episode control did: the participant's current episode, or why nothing was written. */
export type EpisodeOutcome =
  | { readonly ok: true; readonly episode: ParticipantEpisodeState }
  | { readonly ok: false; readonly code: ParticipantControlCode; readonly message: string };

/** The id a new episode gets when none is given: the participant's address and its sequence number. */
export function defaultEpisodeId(participant: string, sequence: number): string {
  return `${participant}-episode-${sequence + 1}`;
}

/**
 * Applies one episode control to a participant in the store, as RAES's participant runtime does
 * (initialize, reset, restart, terminate), with the operator decision in the same transaction. The
 * participant's episode history keeps every event; a refusal writes nothing.
 */
export async function controlEpisode(
  store: ControlPlaneStore,
  request: EpisodeRequest,
  clock: ControlClock = {},
): Promise<EpisodeOutcome> {
  const operator = operatorIdentity(request.operator);
  const note = decisionNote(request.note);
  const at = decisionTime((clock.now ?? (() => new Date()))());
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const record = await store.getParticipantService(request.participant);
    if (!record)
      return {
        ok: false,
        code: ParticipantControlCode.not_found,
        message: `participant '${request.participant}' has no execution service in this store`,
      };
    const step = episodeStep(record, request, at);
    if (!step.ok) return step;
    const next: ParticipantServiceRecord = {
      ...record,
      revision: record.revision + 1,
      episode: step.value.episode,
      episodeHistory: [...record.episodeHistory, ...step.value.events],
      updatedAt: at,
    };
    const decision: OperatorDecisionDraft = {
      kind: OperatorDecisionKind[`episode_${request.action}`],
      subject: request.participant,
      operator,
      note,
      decided_at: at,
    };
    if (await store.saveParticipantService(next, decision)) return { ok: true, episode: step.value.episode };
  }
  return {
    ok: false,
    code: ParticipantControlCode.changed_concurrently,
    message: `participant '${request.participant}' was changed by another control meanwhile; try again`,
  };
}

function episodeStep(
  record: ParticipantServiceRecord,
  request: EpisodeRequest,
  at: string,
): { ok: true; value: EpisodeStep } | { ok: false; code: ParticipantControlCode; message: string } {
  const current = record.episode;
  const sequence = current === null ? 0 : current.sequence_number + 1;
  const id = (given: string | undefined) => given ?? defaultEpisodeId(request.participant, sequence);
  switch (request.action) {
    case "initialize":
      return initializeEpisode(current, request.participant, id(request.episodeId), at);
    case "reset":
    case "restart":
      return nextEpisode(
        current,
        request.participant,
        request.action,
        id(request.episodeId),
        request.reason ?? (request.action === "reset" ? "reset by operator" : "restarted by operator"),
        at,
      );
    case "terminate":
      return terminateEpisode(
        current,
        request.participant,
        request.terminalReason ?? "interrupted",
        request.detail ?? "terminated by operator",
        at,
      );
  }
}

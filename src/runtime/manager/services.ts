import type { BackendManifest } from "../../manifest/index.js";
import {
  abandonedDrain,
  acceptsWork,
  EXECUTION_SERVICE_STATE_SCHEMA,
  ExecutionControlAction,
  executionResetsOf,
  initializeEpisode,
  jcsDigest,
  nextEpisode,
  type ParticipantServiceRecord,
} from "../../records/index.js";
import type { ClockRecord, ControlPlaneStore } from "../../store/index.js";
import { episodeIdFor, type ScheduleBook, type ScheduleSpec, type ServiceView } from "../schedule/index.js";

/**
 * The participants' execution services (docs/guide/operations.md, "Controlling one participant"):
 * created at open, read back before every advance, and followed through clock resets. The store holds
 * them, so a control from another process takes effect here at the next advance.
 */

/** The controls a manifest allows: its `supported_execution_control_actions` when it supports execution control. */
export function controlActionsOf(manifest: BackendManifest): ExecutionControlAction[] {
  const runtime = manifest.participantRuntime;
  if (!runtime.supportsExecutionControl) return [];
  const known: readonly string[] = Object.values(ExecutionControlAction);
  return runtime.supportedExecutionControlActions.filter((a): a is ExecutionControlAction =>
    known.includes(a),
  );
}

/** Each participant's first schedule, in plan order. */
function firstSpecs(specs: readonly ScheduleSpec[]): ScheduleSpec[] {
  const seen = new Set<string>();
  return specs.filter((spec) => !seen.has(spec.participantAddress) && seen.add(spec.participantAddress));
}

/** A participant's first service record: started (running) or stopped, in its first episode. */
function firstRecord(
  spec: ScheduleSpec,
  specs: readonly ScheduleSpec[],
  context: { manifest: BackendManifest; clock: ClockRecord; at: string; start: boolean },
): ParticipantServiceRecord {
  const { policy, participantAddress } = spec;
  const { clock, at, start } = context;
  const scope = `${policy.address}:${participantAddress}`;
  const episode = initializeEpisode(
    null,
    participantAddress,
    episodeIdFor(participantAddress, clock.segment),
    at,
  );
  if (!episode.ok) throw new Error(episode.message);
  return {
    participantAddress,
    revision: 1,
    service: {
      schema_version: EXECUTION_SERVICE_STATE_SCHEMA,
      execution_scope_ref: scope,
      policy_address: policy.address,
      desired_lifecycle: start ? "running" : "stopped",
      observed_lifecycle: start ? "running" : "stopped",
      generation: clock.generation,
      observed_generation: clock.generation,
      health: "healthy",
      readiness: start ? "ready" : "not_ready",
      accepting_new_work: start,
      draining: false,
      quiescent: true,
      resources_released: false,
      policy_digest: spec.policyDigest,
      binding_digest: jcsDigest(policy.executionBindings),
      time_declaration_digest: jcsDigest({ clock: policy.clockAddress, progression: spec.progression }),
      scheduler_state_refs: specs
        .filter((s) => s.participantAddress === participantAddress)
        .map((s) => `${s.policy.address}.state.${participantAddress}`),
      resource_budget_state_refs: [],
      capacity: context.manifest.participantRuntime.maxAutonomousInFlight ?? 1,
      reserved: 0,
      in_flight: 0,
      last_transition_ref: `operation:${scope}:${start ? "start" : "configure"}:revision-1`,
      pacing_deviation_refs: [],
      evidence_refs: [`evidence:${scope}:configure:revision-1`],
    },
    controlActions: controlActionsOf(context.manifest),
    clockGeneration: clock.generation,
    episode: episode.value.episode,
    episodeHistory: episode.value.events,
    updatedAt: at,
  };
}

/**
 * Creates the service record of every scheduled participant that has none (started unless `start` is
 * false), and brings each record's allowed controls to this manifest's.
 */
export async function ensureServices(
  store: ControlPlaneStore,
  book: ScheduleBook,
  context: {
    specs: readonly ScheduleSpec[];
    manifest: BackendManifest;
    at: string;
    start: boolean;
  },
): Promise<void> {
  const allowed = controlActionsOf(context.manifest);
  for (const spec of firstSpecs(context.specs)) {
    const clock = book.clock(spec.policy.clockAddress);
    if (!clock) continue;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const record = await store.getParticipantService(spec.participantAddress);
      const next = record
        ? sameActions(record.controlActions, allowed)
          ? undefined
          : { ...record, revision: record.revision + 1, controlActions: allowed, updatedAt: context.at }
        : firstRecord(spec, context.specs, { ...context, clock });
      if (!next || (await store.saveParticipantService(next))) break;
    }
  }
}

function sameActions(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The record after a clock reset it has not followed yet: the next generation (RAES: a shared-clock
 * reset advances the generation) and, for a live episode, a new one in the clock's new segment
 * (RAES's coordinated reset: `<participant>-autonomous-<segment>`).
 */
function followClock(
  record: ParticipantServiceRecord,
  clock: ClockRecord,
  at: string,
): ParticipantServiceRecord {
  const resets = clock.generation - record.clockGeneration;
  const generation = record.service.generation + resets;
  const scope = record.service.execution_scope_ref;
  const revision = record.revision + 1;
  const episode =
    record.episode && record.episode.status !== "terminated"
      ? nextEpisode(
          record.episode,
          record.participantAddress,
          "reset",
          episodeIdFor(record.participantAddress, clock.segment),
          `shared clock reset to segment ${clock.segment}`,
          at,
        )
      : undefined;
  return {
    ...record,
    revision,
    clockGeneration: clock.generation,
    service: {
      ...record.service,
      generation,
      observed_generation: generation,
      last_transition_ref: `operation:${scope}:clock-reset:revision-${revision}`,
    },
    ...(episode?.ok
      ? {
          episode: episode.value.episode,
          episodeHistory: [...record.episodeHistory, ...episode.value.events],
        }
      : {}),
    updatedAt: at,
  };
}

/**
 * Reads every participant's service, follows clock resets it has not followed, applies every execution
 * reset its schedules have not honoured to the schedules this process owns (one stored while no runtime
 * ran included), and hands the book what each service admits.
 */
export async function refreshServices(
  store: ControlPlaneStore,
  book: ScheduleBook,
  specs: readonly ScheduleSpec[],
  at: string,
): Promise<void> {
  const records = new Map((await store.listParticipantServices()).map((r) => [r.participantAddress, r]));
  const views = new Map<string, ServiceView>();
  const resets = new Map<string, number>();
  for (const spec of firstSpecs(specs)) {
    const p = spec.participantAddress;
    let record = records.get(p);
    const clock = book.clock(spec.policy.clockAddress);
    for (
      let attempt = 0;
      record && clock && record.clockGeneration < clock.generation && attempt < 3;
      attempt += 1
    ) {
      const next = followClock(record, clock, at);
      record = (await store.saveParticipantService(next)) ? next : await store.getParticipantService(p);
    }
    // A drain whose process ended without finishing it: put back, so the participant runs on as before.
    const putBack = record && abandonedDrain(record, Date.parse(at));
    if (putBack)
      record = (await store.saveParticipantService(putBack)) ? putBack : await store.getParticipantService(p);
    if (!record) continue;
    const generation = record.service.generation;
    resets.set(p, executionResetsOf(record));
    views.set(p, {
      accepting: acceptsWork(record),
      generation,
      revision: record.revision,
      ...(record.episode ? { episodeId: record.episode.episode_id } : {}),
      ...(record.service.observed_lifecycle === "terminated" ? { tornDown: true } : {}),
    });
  }
  await book.honourExecutionResets(resets);
  book.setServices(views);
}

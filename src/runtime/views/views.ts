import type { RuntimeModel } from "../../compiler/index.js";
import {
  type ClockRecord,
  type HistoryEvent,
  type InvocationRecord,
  type PacingDeviationRecord,
  type ParticipantEpisodeEvent,
  type ParticipantServiceRecord,
  type SchedulerRecord,
  serviceReadback,
  type ToolActionRecord,
} from "../../records/index.js";
import { episodeIdFor } from "../schedule/index.js";
import { type DerivedEpisode, episodeHistory, episodeState } from "./episodes.js";
import { viewBehaviorEvent } from "./projection.js";
import { autonomousExecutionState, schedulerStateKey } from "./scheduler-state.js";
import {
  type AutonomousExecutionState,
  type ContextViewOptions,
  CURRENT_SNAPSHOT_REF,
  type ParticipantContextView,
  type ParticipantHistoryView,
  type ParticipantStatusView,
  type ViewEpisodeEvent,
  type ViewEpisodeState,
  type ViewExecutionService,
} from "./types.js";

/** What the views read: the store's reads, the compiled model and the time of the view. */
export interface ViewSource {
  readonly model: RuntimeModel;
  readonly now: () => string;
  readonly store: {
    listSchedulers(): Promise<SchedulerRecord[]>;
    getClock(clockAddress: string): Promise<ClockRecord | undefined>;
    listEvents(query: { participantAddress?: string; episodeId?: string }): Promise<HistoryEvent[]>;
    listOpenInvocations(participantAddress?: string): Promise<InvocationRecord[]>;
    listOpenToolActions(participantAddress?: string): Promise<ToolActionRecord[]>;
    /** The participant's stored execution service and episodes (schema step 17). */
    getParticipantService(participantAddress: string): Promise<ParticipantServiceRecord | undefined>;
    /** The pacing deviations stored against the participant's services (schema step 20). */
    listPacingDeviations(participantAddress?: string): Promise<PacingDeviationRecord[]>;
  };
}

/** RAES's view id: `runtime.participant-view.<kind>.<participant>.<episode or view ref, else current>`. */
function viewId(kind: string, participantAddress: string, suffix: string | null | undefined): string {
  return `runtime.participant-view.${kind}.${participantAddress}.${suffix || "current"}`;
}

/** RAES's visibility projection ref of a participant's view of one kind. */
function visibilityProjectionRef(participantAddress: string, kind: string): string {
  return `runtime.visibility-projection.${kind}.${participantAddress}.v1`;
}

interface Participant {
  readonly address: string;
  readonly records: readonly SchedulerRecord[];
  /** The newest clock segment of its schedules: its current episode's. */
  readonly segment: number;
  readonly clocks: ReadonlyMap<string, ClockRecord | undefined>;
}

/** The participant as the store knows it (its schedules and their clocks), or undefined when it has none. */
async function participantOf(source: ViewSource, address: string): Promise<Participant | undefined> {
  const records = (await source.store.listSchedulers()).filter((r) => r.participantAddress === address);
  if (records.length === 0) return undefined;
  const clocks = new Map<string, ClockRecord | undefined>();
  let segment = 0;
  for (const r of records) {
    const clockAddress = source.model.autonomousPolicies[r.policyAddress]?.clockAddress;
    if (clockAddress !== undefined && !clocks.has(clockAddress))
      clocks.set(clockAddress, await source.store.getClock(clockAddress));
    const clock = clockAddress === undefined ? undefined : clocks.get(clockAddress);
    segment = Math.max(segment, r.segment, clock?.segment ?? 0);
  }
  return { address, records, segment, clocks };
}

/** The segment of one of the participant's episodes, or undefined when the id is not one of its episodes. */
function segmentOf(participant: Participant, episodeId: string): number | undefined {
  const prefix = episodeIdFor(participant.address, 0).slice(0, -1);
  if (!episodeId.startsWith(prefix)) return undefined;
  const digits = episodeId.slice(prefix.length);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(digits)) return undefined;
  const segment = Number(digits);
  return segment <= participant.segment ? segment : undefined;
}

function derived(
  participant: Participant,
  segment: number,
  events: readonly HistoryEvent[],
  at: string,
): DerivedEpisode {
  return { participantAddress: participant.address, segment, at: events[0]?.timestamp ?? at };
}

/** A stored episode event as RAES's history view writes it (participant and episode are the view's). */
function viewEpisodeEvent(event: ParticipantEpisodeEvent): ViewEpisodeEvent {
  const { participant_address: _p, episode_id: _e, ...rest } = event;
  return rest;
}

/** The stored episode state as RAES's status view writes it. */
function viewEpisodeState(episode: NonNullable<ParticipantServiceRecord["episode"]>): ViewEpisodeState {
  const { participant_address: _p, episode_id: _e, ...rest } = episode;
  return rest;
}

/**
 * The participant's stored service readback (schema step 17) joined with its stored pacing deviations
 * (schema step 20): `degraded` with RAES's `pacing_deviation_refs` once pacing was lost, as every process
 * reads them.
 */
function executionServices(
  record: ParticipantServiceRecord | undefined,
  deviations: readonly PacingDeviationRecord[],
  generatedAt: string,
): ViewExecutionService[] {
  return record ? [serviceReadback(record, deviations, Date.parse(generatedAt))] : [];
}

/**
 * RAES's participant status view: the current episode and its state (the stored episode, else the clock
 * segment's), the participant's open operations (running invocations and their admitted or dispatched
 * tool actions, ids bytewise), and, raes-ts's own, the stored readback of its execution service with its
 * health (`degraded` once pacing was lost, in any process). Undefined for a participant the store has no
 * schedule of.
 */
export async function participantStatusView(
  source: ViewSource,
  participantAddress: string,
): Promise<ParticipantStatusView | undefined> {
  const participant = await participantOf(source, participantAddress);
  if (!participant) return undefined;
  const generatedAt = source.now();
  const record = await source.store.getParticipantService(participantAddress);
  const stored = record?.episode ?? null;
  const episodeId = stored?.episode_id ?? episodeIdFor(participantAddress, participant.segment);
  const invocations = await source.store.listOpenInvocations(participantAddress);
  const actions = await source.store.listOpenToolActions(participantAddress);
  const open = [
    ...invocations.filter((i) => i.state === "running").map((i) => i.id),
    ...actions.filter((a) => a.phase === "admitted" || a.phase === "dispatched").map((a) => a.id),
  ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let episode: ViewEpisodeState;
  if (stored) episode = viewEpisodeState(stored);
  else {
    const events = await source.store.listEvents({ participantAddress, episodeId });
    episode = episodeState(derived(participant, participant.segment, events, generatedAt));
  }
  return {
    view_id: viewId("status", participantAddress, episodeId),
    participant_address: participantAddress,
    episode_id: episodeId,
    generated_at: generatedAt,
    source_snapshot_ref: CURRENT_SNAPSHOT_REF,
    episode_state: episode,
    open_operation_refs: open,
    visibility_projection_ref: visibilityProjectionRef(participantAddress, "status"),
    marking_definition_refs: [],
    redaction_policy_ref: null,
    execution_services: executionServices(
      record,
      await source.store.listPacingDeviations(participantAddress),
      generatedAt,
    ),
  };
}

/**
 * RAES's participant history view of one episode: its episode history (the stored episode events, else
 * derived from the clock segment) and its behavior history in commit order, complete. Undefined when the
 * participant has no such episode.
 */
export async function participantHistoryView(
  source: ViewSource,
  participantAddress: string,
  episodeId: string,
): Promise<ParticipantHistoryView | undefined> {
  const participant = await participantOf(source, participantAddress);
  if (!participant) return undefined;
  const record = await source.store.getParticipantService(participantAddress);
  const storedEvents = record?.episodeHistory.filter((e) => e.episode_id === episodeId) ?? [];
  const segment = segmentOf(participant, episodeId);
  // With stored episodes, an episode is one the store recorded; without, one of the clock's segments.
  if (record?.episode ? storedEvents.length === 0 : segment === undefined) return undefined;
  const generatedAt = source.now();
  const events = await source.store.listEvents({ participantAddress, episodeId });
  return {
    view_id: viewId("history", participantAddress, episodeId),
    participant_address: participantAddress,
    episode_id: episodeId,
    generated_at: generatedAt,
    source_snapshot_ref: CURRENT_SNAPSHOT_REF,
    episode_history:
      storedEvents.length > 0
        ? storedEvents.map(viewEpisodeEvent)
        : episodeHistory(derived(participant, segment ?? 0, events, generatedAt)),
    behavior_history: events.map(viewBehaviorEvent),
    visibility_projection_ref: visibilityProjectionRef(participantAddress, "history"),
    redaction_policy_ref: null,
    completeness: "complete",
    completeness_basis: null,
    marking_definition_refs: [],
  };
}

/**
 * RAES's participant context view: the derived view relation `viewRef` declares over the current
 * snapshot (or the given episode), with RAES's source layer, transformation and comparability. Undefined
 * for an unknown participant or episode.
 */
export async function participantContextView(
  source: ViewSource,
  participantAddress: string,
  options: ContextViewOptions,
): Promise<ParticipantContextView | undefined> {
  const participant = await participantOf(source, participantAddress);
  if (!participant) return undefined;
  if (options.episodeId !== undefined && segmentOf(participant, options.episodeId) === undefined)
    return undefined;
  const { viewRef } = options;
  const sourceRefs = options.derivedFromRefs?.length ? [...options.derivedFromRefs] : [CURRENT_SNAPSHOT_REF];
  const sourceRef = sourceRefs[0] as string;
  const observationPoint = options.episodeId || CURRENT_SNAPSHOT_REF;
  const basis = options.derivationBasisRef || viewRef;
  const sourceId = "source-snapshot";
  return {
    view_id: viewId("context", participantAddress, options.episodeId || viewRef),
    participant_address: participantAddress,
    episode_id: options.episodeId ?? null,
    generated_at: source.now(),
    source_snapshot_ref: CURRENT_SNAPSHOT_REF,
    view_ref: viewRef,
    meaning_ref: viewRef,
    participant_scope: "participant_local",
    audience_scope: "participant_visible",
    observation_point: observationPoint,
    derived_from_refs: sourceRefs,
    source_layers: [
      {
        source_id: sourceId,
        source_layer: "source_snapshot",
        ref: sourceRef,
        temporal_relation: "same_observation_point",
        observation_point: observationPoint,
        freshness_basis_ref: null,
        evidence_refs: [...sourceRefs],
        provenance_refs: [...sourceRefs],
      },
    ],
    transformation: {
      transformation_rule_ref: basis,
      description: "API-408 derived context view relation declared by the governed view reference",
      input_source_ids: [sourceId],
      output_semantics_ref: viewRef,
    },
    comparability: {
      comparability_class: "portable_equivalent",
      comparison_basis_ref: `comparability.${viewRef}`,
      backend_disclosure_refs: [],
      limitations: [
        "Comparable only under the declared view, transformation, visibility, and evidence basis",
      ],
    },
    evidence_refs: [...sourceRefs],
    provenance_refs: [...sourceRefs],
    semantic_limitations: [
      "Context-view payload remains a referenced derived view, not backend-private state",
    ],
    derivation_basis_ref: options.derivationBasisRef ?? null,
    payload_ref: options.payloadRef ?? null,
    visibility_projection_ref: visibilityProjectionRef(participantAddress, "context"),
    marking_definition_refs: [],
    redaction_policy_ref: null,
  };
}

/**
 * Every schedule's state under RAES's names, keyed as RAES keys them (`<policy>.state.<participant>`):
 * RAES's `participant_autonomous_execution_states`, translated from the stored records.
 */
export async function autonomousExecutionStates(
  source: ViewSource,
  records?: readonly SchedulerRecord[],
): Promise<Record<string, AutonomousExecutionState>> {
  const out: Record<string, AutonomousExecutionState> = {};
  for (const record of records ?? (await source.store.listSchedulers())) {
    const policy = source.model.autonomousPolicies[record.policyAddress];
    if (!policy) continue;
    const p = record.participantAddress;
    const open = await source.store.listOpenInvocations(p);
    const state = autonomousExecutionState({
      model: source.model,
      record,
      clock: await source.store.getClock(policy.clockAddress),
      episodeEvents: record.activity
        ? []
        : await source.store.listEvents({
            participantAddress: p,
            episodeId: episodeIdFor(p, record.segment),
          }),
      inFlight: open.filter((i) => i.policyAddress === record.policyAddress && i.state === "running").length,
    });
    if (state) out[schedulerStateKey(record.policyAddress, p)] = state;
  }
  return out;
}

/** Where a standalone view reads from: a store and the model its scenario compiles to. */
export interface StoreViewSource {
  readonly store: ViewSource["store"];
  readonly model: RuntimeModel;
  /** The view's `generated_at` (ISO-8601); default the wall clock. */
  readonly now?: () => string;
}

/**
 * RAES's participant history view of one episode, read from a store (the manager's
 * `getParticipantHistoryView` reads its own): undefined when the participant has no such episode.
 *
 * @example
 * const view = await getParticipantHistoryView({ store, model }, participant, `${participant}-autonomous-0`);
 * // view?.behavior_history: RAES's behavior events of the episode, in commit order
 */
export function getParticipantHistoryView(
  source: StoreViewSource,
  participantAddress: string,
  episodeId: string,
): Promise<ParticipantHistoryView | undefined> {
  const now = source.now ?? (() => new Date().toISOString().replace(/Z$/, "000Z"));
  return participantHistoryView(
    { store: source.store, model: source.model, now },
    participantAddress,
    episodeId,
  );
}

/**
 * RAES's participant status view read from a store (the manager's `getParticipantStatusView` reads its
 * own): what another process, or a later one, sees, pacing deviations included. Undefined for a
 * participant the store has no schedule of.
 *
 * @example
 * const status = await getParticipantStatusView({ store, model }, participant);
 * // status?.execution_services[0]?.health: "degraded" once a real-time run lost its pacing
 */
export function getParticipantStatusView(
  source: StoreViewSource,
  participantAddress: string,
): Promise<ParticipantStatusView | undefined> {
  const now = source.now ?? (() => new Date().toISOString().replace(/Z$/, "000Z"));
  return participantStatusView({ store: source.store, model: source.model, now }, participantAddress);
}

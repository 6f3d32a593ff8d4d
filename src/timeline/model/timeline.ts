import type { HistoryEvent, InvocationToolContext } from "../../history/index.js";
import type { Operation } from "../../operations/index.js";
import type { ContinuationView } from "../../runtime/index.js";
import type { ResourceBudgetEventRecord, ResourceEventCounts, ResourceUseRow } from "../../store/index.js";

/**
 * The part of a history event the timeline draws: a history event is one, and the timeline's reader
 * keeps no more (not the event id, chain digest or execution scope), so a long history's page is
 * drawn from a fraction of its events' memory (docs/hardening.md).
 */
export type TimelineEvent = Pick<
  HistoryEvent,
  | "sequence"
  | "event_type"
  | "timestamp"
  | "participant_address"
  | "episode_id"
  | "action_instance_id"
  | "action_contract_address"
  | "actor_provenance"
  | "observation_boundary_address"
  | "observation_status"
  | "lifecycle_phase"
  | "post_state_digest"
  | "action_result"
  | "invocation_tool_context"
  | "activity_provenance"
> & {
  /** Only the observation point of each temporal context is shown. */
  readonly temporal_contexts: readonly { readonly observation_point: string }[];
};

/** A participant's scheduler as the timeline shows it. */
export interface TimelineScheduler {
  readonly participantAddress: string;
  readonly lifecycle: string;
  readonly stopReason?: string;
  /** A v2 scheduler's continuation (RAES's fields). */
  readonly continuation?: ContinuationView;
  /** A v3 scheduler's budget use per owner and window. */
  readonly budgets?: readonly ResourceUseRow[];
  /**
   * v3 only, on the participant's first v3 scheduler: how many budget events the store keeps for the
   * participant (every one), and the most recent of them.
   */
  readonly budgetEvents?: {
    readonly counts: ResourceEventCounts;
    readonly recent: readonly ResourceBudgetEventRecord[];
  };
}

/** What the timeline page is drawn from. */
export interface TimelineInput {
  readonly events: readonly TimelineEvent[];
  /** The operations of the actions in `events`; missing ones are shown as not found. */
  readonly operations: readonly Operation[];
  readonly schedulers?: readonly TimelineScheduler[];
  readonly title?: string;
  /** The store URL the page names in its `raes resolve` commands; default the CLI's default store. */
  readonly storeUrl?: string;
  /** Whether the store's history chains verify (`raes verify`); the header shows it when given. */
  readonly chain?: TimelineChain;
  /** Calls held for approval that nobody has decided yet: not in history until they settle. */
  readonly pendingApprovals?: readonly PendingApproval[];
  /** Operator decisions about a participant (resume, execution controls, episodes), oldest first. */
  readonly participantDecisions?: readonly ParticipantDecision[];
  /** Losses of wall pacing stored against a participant's service (schema step 20), oldest first. */
  readonly pacingDeviations?: readonly PacingDeviation[];
  /** Each participant's execution service as it reads back now (lifecycle, health, generation). */
  readonly services?: readonly TimelineService[];
}

/**
 * A participant's execution service as its section shows it: the readback every reader shows (an
 * abandoned drain put back, `degraded` once pacing was lost; docs/guide/operations.md).
 */
export interface TimelineService {
  readonly participantAddress: string;
  /** RAES's `observed_lifecycle`. */
  readonly lifecycle: string;
  /** RAES's `health`. */
  readonly health: string;
  readonly generation: number;
  readonly acceptingNewWork: boolean;
}

/** A loss of wall pacing that marks a participant's execution service `degraded`, as its section lists it. */
export interface PacingDeviation {
  readonly participantAddress: string;
  /** RAES's evidence ref (`evidence:<policy>:pacing-loss:<clock>:generation-<g>`). */
  readonly ref: string;
  readonly clockAddress: string;
  readonly latenessMs: number;
  readonly boundMs: number;
  readonly recordedAt: string;
}

/** An operator decision whose subject is a participant, as its section lists it with who decided. */
export interface ParticipantDecision {
  readonly kind: string;
  readonly participantAddress: string;
  readonly operator: string;
  readonly note: string;
  readonly decidedAt: string;
  /** A `policy_change`: the schedule's policy and its digests before and after the change. */
  readonly policyChange?: {
    readonly policyAddress: string;
    readonly previousDigest: string;
    readonly digest: string;
  };
}

/** A call held for an operator's approval (docs/guide/approvals.md), as its participant's section lists it. */
export interface PendingApproval {
  readonly id: string;
  readonly participantAddress: string;
  readonly toolName?: string;
  readonly requestedAt: string;
  readonly timeoutSeconds: number;
  /**
   * Why an approve would be refused now (`approvalLapsed`: its timeout passed, or its runtime is
   * gone): the page then prints only its deny command, and this reason, as `--needs-operator` does.
   */
  readonly lapsed?: { readonly code: string; readonly message: string };
}

/** The outcome of verifying the store (`raes verify --store`), as the header badge shows it. */
export interface TimelineChain {
  readonly ok: boolean;
  readonly events: number;
  /** Operator decisions recomputed, when the operator chain was checked. */
  readonly decisions?: number;
  /** What fails first, for a person, as `raes verify --store` names it (`storeFailure`). */
  readonly failure?: string;
}

/** One tool action: its triple, its context and its operation. */
export interface TimelineToolAction {
  readonly id: string;
  readonly context: InvocationToolContext;
  readonly events: TimelineEvent[];
  readonly operation: Operation | undefined;
}

/** One outer invocation with its tool actions in admission order. */
export interface TimelineInvocation {
  readonly id: string;
  readonly episodeId: string;
  readonly firstSequence: number;
  readonly toolActions: TimelineToolAction[];
  /** The outer triple; empty when the attempt was consumed without one. */
  readonly outerEvents: TimelineEvent[];
  readonly operation: Operation | undefined;
}

/** One participant's part of the page. */
export interface TimelineParticipant {
  readonly address: string;
  readonly invocations: TimelineInvocation[];
  readonly schedulers: TimelineScheduler[];
}

/** Everything the page shows, grouped. */
export interface Timeline {
  readonly participants: TimelineParticipant[];
  readonly events: TimelineEvent[];
}

/** The settlements the page has a colour for. */
export const SETTLEMENTS = ["succeeded", "failed", "partial_success", "withheld", "indeterminate"] as const;

interface InvocationDraft {
  readonly participantAddress: string;
  readonly invocation: TimelineInvocation;
  readonly toolActions: Map<string, TimelineToolAction>;
}

function invocationFor(
  drafts: Map<string, InvocationDraft>,
  event: TimelineEvent,
  invocationId: string,
  operations: ReadonlyMap<string, Operation>,
): InvocationDraft {
  // Ids are only unique per participant, so the participant is part of the key.
  const key = JSON.stringify([event.participant_address, invocationId]);
  let draft = drafts.get(key);
  if (!draft) {
    draft = {
      participantAddress: event.participant_address,
      invocation: {
        id: invocationId,
        episodeId: event.episode_id,
        firstSequence: event.sequence,
        toolActions: [],
        outerEvents: [],
        operation: operations.get(invocationId),
      },
      toolActions: new Map(),
    };
    drafts.set(key, draft);
  }
  return draft;
}

function addToolEvent(
  draft: InvocationDraft,
  event: TimelineEvent,
  context: InvocationToolContext,
  operations: ReadonlyMap<string, Operation>,
): void {
  let action = draft.toolActions.get(event.action_instance_id);
  if (!action) {
    action = {
      id: event.action_instance_id,
      context,
      events: [],
      operation: operations.get(event.action_instance_id),
    };
    draft.toolActions.set(action.id, action);
    draft.invocation.toolActions.push(action);
  }
  action.events.push(event);
}

/** Groups wire events (any order) into participants, invocations in commit order and tool actions in admission order. */
export function buildTimeline(
  events: readonly TimelineEvent[],
  operations: readonly Operation[],
  schedulers: readonly TimelineScheduler[],
): Timeline {
  const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
  const operationById = new Map(operations.map((operation) => [operation.id, operation]));
  const drafts = new Map<string, InvocationDraft>();
  for (const event of sorted) {
    const context = event.invocation_tool_context;
    const invocationId = context ? context.invocation_action_instance_id : event.action_instance_id;
    const draft = invocationFor(drafts, event, invocationId, operationById);
    if (context) addToolEvent(draft, event, context, operationById);
    else draft.invocation.outerEvents.push(event);
  }
  const participants = new Map<string, TimelineParticipant>();
  const participantFor = (address: string): TimelineParticipant => {
    let participant = participants.get(address);
    if (!participant) {
      participant = { address, invocations: [], schedulers: [] };
      participants.set(address, participant);
    }
    return participant;
  };
  for (const draft of drafts.values()) {
    draft.invocation.toolActions.sort(
      (a, b) =>
        a.context.admission_ordinal - b.context.admission_ordinal ||
        (a.events[0]?.sequence ?? 0) - (b.events[0]?.sequence ?? 0),
    );
    participantFor(draft.participantAddress).invocations.push(draft.invocation);
  }
  for (const scheduler of schedulers) participantFor(scheduler.participantAddress).schedulers.push(scheduler);
  // Participants that need an operator come first, otherwise in the order their history began.
  const ordered = [...participants.values()].sort(
    (a, b) => Number(needsOperator(b)) - Number(needsOperator(a)),
  );
  return { participants: ordered, events: sorted };
}

/** True when the participant has an unresolved indeterminate tool action or a stopped scheduler. */
export function needsOperator(participant: TimelineParticipant): boolean {
  if (participant.schedulers.some((scheduler) => scheduler.lifecycle === "stopped")) return true;
  return participant.invocations.some((invocation) => invocation.toolActions.some(needsResolution));
}

/** The settlement a tool action's observation recorded. */
export function settlementOf(action: TimelineToolAction): string {
  const observed = action.events.find((event) => event.event_type === "observation_emitted");
  return (observed?.invocation_tool_context ?? action.context).settlement;
}

/** The `observation_emitted` event of a triple, when it was committed. */
export function observationOf(events: readonly TimelineEvent[]): TimelineEvent | undefined {
  return events.find((event) => event.event_type === "observation_emitted");
}

/** True for an indeterminate action that no operator has resolved yet. */
export function needsResolution(action: TimelineToolAction): boolean {
  return settlementOf(action) === "indeterminate" && action.operation?.resolution === undefined;
}

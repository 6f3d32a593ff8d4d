import type { Operation } from "../../operations/index.js";
import type { TimelineEvent, TimelineInvocation, TimelineToolAction } from "./timeline.js";

/** An invocation whose events are all read, before its operations are joined. */
export interface GroupedInvocation {
  readonly participantAddress: string;
  readonly id: string;
  readonly episodeId: string;
  readonly firstSequence: number;
  readonly outerEvents: TimelineEvent[];
  /** Its tool actions in admission order. */
  readonly toolActions: readonly Omit<TimelineToolAction, "operation">[];
}

interface Open {
  readonly invocation: GroupedInvocation;
  readonly actions: Map<string, Omit<TimelineToolAction, "operation">>;
}

/** An event of an invocation its participant had already moved on from: the history is not grouped by commit. */
export class InterleavedHistoryError extends Error {
  constructor(participantAddress: string, invocationId: string) {
    super(`an event of invocation ${invocationId} of ${participantAddress} came after a later invocation's`);
    this.name = "InterleavedHistoryError";
  }
}

/**
 * Groups events read in commit order into invocations as they complete (buildTimeline's groups): an
 * invocation commits its events in one transaction, so a participant's invocation is complete when
 * that participant's next event belongs to another. Memory holds one open invocation per participant
 * and the ids of the completed ones; an event of a completed invocation throws
 * `InterleavedHistoryError`, and the caller groups the whole history at once instead.
 */
export class InvocationGrouper {
  readonly #open = new Map<string, Open>();
  readonly #done = new Map<string, Set<string>>();

  /** Takes the next event; answers the invocation it completes, if any. */
  add(event: TimelineEvent): GroupedInvocation | undefined {
    const context = event.invocation_tool_context;
    const id = context ? context.invocation_action_instance_id : event.action_instance_id;
    const participant = event.participant_address;
    let open = this.#open.get(participant);
    let completed: GroupedInvocation | undefined;
    if (open && open.invocation.id !== id) {
      completed = this.#complete(participant, open);
      open = undefined;
    }
    if (!open) {
      if (this.#done.get(participant)?.has(id)) throw new InterleavedHistoryError(participant, id);
      open = {
        invocation: {
          participantAddress: participant,
          id,
          episodeId: event.episode_id,
          firstSequence: event.sequence,
          outerEvents: [],
          toolActions: [],
        },
        actions: new Map(),
      };
      this.#open.set(participant, open);
    }
    if (context) {
      let action = open.actions.get(event.action_instance_id);
      if (!action) {
        action = { id: event.action_instance_id, context, events: [] };
        open.actions.set(action.id, action);
      }
      action.events.push(event);
    } else open.invocation.outerEvents.push(event);
    return completed;
  }

  /** Completes every invocation still open (the history has ended). */
  finish(): GroupedInvocation[] {
    const completed = [...this.#open].map(([participant, open]) => this.#complete(participant, open));
    this.#open.clear();
    return completed;
  }

  #complete(participant: string, open: Open): GroupedInvocation {
    let done = this.#done.get(participant);
    if (!done) {
      done = new Set();
      this.#done.set(participant, done);
    }
    done.add(open.invocation.id);
    const actions = [...open.actions.values()].sort(
      (a, b) =>
        a.context.admission_ordinal - b.context.admission_ordinal ||
        (a.events[0]?.sequence ?? 0) - (b.events[0]?.sequence ?? 0),
    );
    return { ...open.invocation, toolActions: actions };
  }
}

/** The ids whose operations a grouped invocation shows: its own, then each tool action's. */
export function operationIds(invocation: GroupedInvocation): string[] {
  return [invocation.id, ...invocation.toolActions.map((action) => action.id)];
}

/** The invocation as the timeline draws it, with the operations `lookup` finds. */
export function joinOperations(
  invocation: GroupedInvocation,
  lookup: (id: string) => Operation | undefined,
): TimelineInvocation {
  return {
    id: invocation.id,
    episodeId: invocation.episodeId,
    firstSequence: invocation.firstSequence,
    outerEvents: invocation.outerEvents,
    toolActions: invocation.toolActions.map((action) => ({ ...action, operation: lookup(action.id) })),
    operation: lookup(invocation.id),
  };
}

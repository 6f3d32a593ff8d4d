import type { HistoryEvent } from "./types.js";

/** A participant's history with the scheduler's scope fields projected away. */
export type ParticipantHistoryEvent = Omit<HistoryEvent, "execution_scope_ref" | "execution_generation">;

/** Where a history view reads from: a store, a manager, or events already read. */
export type HistorySource =
  | readonly HistoryEvent[]
  | {
      listEvents(query: { participantAddress?: string; episodeId?: string }): Promise<HistoryEvent[]>;
    };

/**
 * A participant's history events in commit order, without the scheduler's scope fields (of one episode
 * when given). RAES's history view, with its wrapper fields, is `getParticipantHistoryView`.
 */
export async function participantHistoryEvents(
  source: HistorySource,
  participantAddress: string,
  options: { readonly episodeId?: string } = {},
): Promise<ParticipantHistoryEvent[]> {
  const events =
    "listEvents" in source
      ? await source.listEvents({
          participantAddress,
          ...(options.episodeId === undefined ? {} : { episodeId: options.episodeId }),
        })
      : source.filter(
          (e) =>
            e.participant_address === participantAddress &&
            (options.episodeId === undefined || e.episode_id === options.episodeId),
        );
  return events.map(({ execution_scope_ref: _scope, execution_generation: _generation, ...rest }) => rest);
}

import { episodeIdFor } from "../schedule/index.js";
import { EPISODE_STATE_SCHEMA_VERSION, type ViewEpisodeEvent, type ViewEpisodeState } from "./types.js";

/**
 * A participant's autonomous episode in one clock segment, as RAES's shared-clock episodes are: segment
 * 0's is initialized at start, each later one by the reset that opened the segment (`sequence_number` is
 * the segment). raes-ts derives these from its clock segments; `at` is when the episode began as far as
 * the store shows it (its first event, else the time of the view).
 */
export interface DerivedEpisode {
  readonly participantAddress: string;
  readonly segment: number;
  readonly at: string;
}

/** RAES's episode id of the episode. */
export function episodeId(e: DerivedEpisode): string {
  return episodeIdFor(e.participantAddress, e.segment);
}

/** RAES's episode history of the episode: initialized (or reset) then running. */
export function episodeHistory(e: DerivedEpisode): ViewEpisodeEvent[] {
  const first: ViewEpisodeEvent =
    e.segment === 0
      ? {
          event_type: "episode_initialized",
          timestamp: e.at,
          sequence_number: 0,
          terminal_reason: null,
          control_action: "initialize",
          details: {},
        }
      : {
          event_type: "episode_reset",
          timestamp: e.at,
          sequence_number: e.segment,
          terminal_reason: null,
          control_action: "reset",
          details: {
            previous_episode_id: episodeIdFor(e.participantAddress, e.segment - 1),
            reason: `shared clock reset to segment ${e.segment}`,
          },
        };
  return [
    first,
    {
      event_type: "episode_running",
      timestamp: e.at,
      sequence_number: e.segment,
      terminal_reason: null,
      control_action: null,
      details: {},
    },
  ];
}

/** RAES's state of the episode: running since it began. */
export function episodeState(e: DerivedEpisode): ViewEpisodeState {
  return {
    state_schema_version: EPISODE_STATE_SCHEMA_VERSION,
    sequence_number: e.segment,
    status: "running",
    terminal_reason: null,
    initialized_at: e.at,
    updated_at: e.at,
    terminated_at: null,
    last_control_action: e.segment === 0 ? "initialize" : "reset",
    previous_episode_id: e.segment === 0 ? null : episodeIdFor(e.participantAddress, e.segment - 1),
  };
}

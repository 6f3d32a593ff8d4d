import {
  type ControlStep,
  EPISODE_STATE_SCHEMA,
  type EpisodeControlAction,
  type EpisodeEventType,
  type EpisodeTerminalReason,
  ParticipantControlCode,
  type ParticipantEpisodeEvent,
  type ParticipantEpisodeState,
} from "./service.js";

/**
 * RAES's participant episode lifecycle (ADR-013; ADR-054 §4): initialize, reset, restart and
 * terminate, each a pure step from the current episode to the next and the events it appends. The
 * refusals carry RAES's code and message (tools/record-raes-control.py, `episodes.json`).
 */

/** An episode step: the new current episode and the events to append to the participant's history. */
export interface EpisodeStep {
  readonly episode: ParticipantEpisodeState;
  readonly events: readonly ParticipantEpisodeEvent[];
}

const TERMINAL_EVENT: Readonly<Record<EpisodeTerminalReason, EpisodeEventType>> = {
  completed: "episode_completed",
  timed_out: "episode_timed_out",
  truncated: "episode_truncated",
  interrupted: "episode_interrupted",
};

function rejected(message: string): ControlStep<EpisodeStep> {
  return { ok: false, code: ParticipantControlCode.episode_rejected, message };
}

function event(
  type: EpisodeEventType,
  episode: ParticipantEpisodeState,
  at: string,
  extra: Partial<Pick<ParticipantEpisodeEvent, "terminal_reason" | "control_action" | "details">> = {},
): ParticipantEpisodeEvent {
  return {
    event_type: type,
    timestamp: at,
    participant_address: episode.participant_address,
    episode_id: episode.episode_id,
    sequence_number: episode.sequence_number,
    terminal_reason: extra.terminal_reason ?? null,
    control_action: extra.control_action ?? null,
    details: extra.details ?? {},
  };
}

/** The first episode of a participant (sequence 0); refused while it has one. */
export function initializeEpisode(
  current: ParticipantEpisodeState | null,
  participantAddress: string,
  episodeId: string,
  at: string,
): ControlStep<EpisodeStep> {
  if (participantAddress === "") return rejected("participant_address must be non-empty");
  if (current !== null)
    return rejected(`participant '${participantAddress}' already has a live episode; use reset or restart`);
  const episode: ParticipantEpisodeState = {
    state_schema_version: EPISODE_STATE_SCHEMA,
    participant_address: participantAddress,
    episode_id: episodeId,
    sequence_number: 0,
    status: "running",
    terminal_reason: null,
    initialized_at: at,
    updated_at: at,
    terminated_at: null,
    last_control_action: "initialize",
    previous_episode_id: null,
  };
  return {
    ok: true,
    value: {
      episode,
      events: [
        event("episode_initialized", episode, at, { control_action: "initialize" }),
        event("episode_running", episode, at),
      ],
    },
  };
}

/**
 * A new episode after the current one: `reset` of a live (non-terminated) episode, `restart` of a
 * terminated one. The new episode links to the one it replaces; the old one's history stays.
 */
export function nextEpisode(
  current: ParticipantEpisodeState | null,
  participantAddress: string,
  action: Exclude<EpisodeControlAction, "initialize">,
  episodeId: string,
  reason: string,
  at: string,
): ControlStep<EpisodeStep> {
  if (participantAddress === "") return rejected("participant_address must be non-empty");
  if (current === null)
    return rejected(`cannot ${action} participant '${participantAddress}': no live episode`);
  const terminated = current.status === "terminated";
  if (action === "reset" && terminated)
    return rejected(`cannot reset terminated participant '${participantAddress}'; use restart`);
  if (action === "restart" && !terminated)
    return rejected(`cannot restart non-terminated participant '${participantAddress}'; use reset`);
  const episode: ParticipantEpisodeState = {
    state_schema_version: EPISODE_STATE_SCHEMA,
    participant_address: participantAddress,
    episode_id: episodeId,
    sequence_number: current.sequence_number + 1,
    status: "running",
    terminal_reason: null,
    initialized_at: at,
    updated_at: at,
    terminated_at: null,
    last_control_action: action,
    previous_episode_id: current.episode_id,
  };
  const type: EpisodeEventType = action === "reset" ? "episode_reset" : "episode_restarted";
  return {
    ok: true,
    value: {
      episode,
      events: [
        event(type, episode, at, {
          control_action: action,
          details: { previous_episode_id: current.episode_id, reason },
        }),
        event("episode_running", episode, at),
      ],
    },
  };
}

/** Drives the current episode to `terminated` with its terminal reason; refused when there is none live. */
export function terminateEpisode(
  current: ParticipantEpisodeState | null,
  participantAddress: string,
  terminalReason: EpisodeTerminalReason,
  detail: string,
  at: string,
): ControlStep<EpisodeStep> {
  if (participantAddress === "") return rejected("participant_address must be non-empty");
  if (current === null)
    return rejected(`cannot terminate participant '${participantAddress}': no live episode`);
  if (current.status === "terminated")
    return rejected(`participant '${participantAddress}' is already terminated`);
  const episode: ParticipantEpisodeState = {
    ...current,
    status: "terminated",
    terminal_reason: terminalReason,
    updated_at: at,
    terminated_at: at,
  };
  return {
    ok: true,
    value: {
      episode,
      events: [
        event(TERMINAL_EVENT[terminalReason], episode, at, {
          terminal_reason: terminalReason,
          details: { detail },
        }),
      ],
    },
  };
}

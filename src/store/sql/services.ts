import type { PacingDeviationRecord, ParticipantServiceRecord } from "../../records/index.js";

/** The `participant_services` row (schema step 17): the record's parts as JSON text, the same in every SQL store. */
export interface ServiceRow {
  readonly participant_address: string;
  readonly revision: number | string;
  readonly service: string;
  readonly control_actions: string;
  readonly clock_generation: number | string;
  readonly episode: string | null;
  readonly episode_history: string;
  readonly updated_at: string;
}

/** The columns of `participant_services`, in table order. */
export const SERVICE_COLUMNS = [
  "participant_address",
  "revision",
  "service",
  "control_actions",
  "clock_generation",
  "episode",
  "episode_history",
  "updated_at",
] as const;

/** A service record's row. */
export function serviceRow(record: ParticipantServiceRecord): ServiceRow {
  return {
    participant_address: record.participantAddress,
    revision: record.revision,
    service: JSON.stringify(record.service),
    control_actions: JSON.stringify(record.controlActions),
    clock_generation: record.clockGeneration,
    episode: record.episode === null ? null : JSON.stringify(record.episode),
    episode_history: JSON.stringify(record.episodeHistory),
    updated_at: record.updatedAt,
  };
}

/** The service record of a row. */
export function serviceRecord(row: ServiceRow): ParticipantServiceRecord {
  return {
    participantAddress: row.participant_address,
    revision: Number(row.revision),
    service: JSON.parse(row.service) as ParticipantServiceRecord["service"],
    controlActions: JSON.parse(row.control_actions) as ParticipantServiceRecord["controlActions"],
    clockGeneration: Number(row.clock_generation),
    episode: row.episode === null ? null : (JSON.parse(row.episode) as ParticipantServiceRecord["episode"]),
    episodeHistory: JSON.parse(row.episode_history) as ParticipantServiceRecord["episodeHistory"],
    updatedAt: row.updated_at,
  };
}

/** The `pacing_deviations` row (schema step 20), the same in every SQL store. */
export interface PacingDeviationRow {
  readonly participant_address: string;
  readonly ref: string;
  readonly policy_address: string;
  readonly clock_address: string;
  readonly generation: number | string;
  readonly lateness_ms: number | string;
  readonly bound_ms: number | string;
  readonly recorded_at: string;
}

/** The columns of `pacing_deviations`, in table order. */
export const PACING_DEVIATION_COLUMNS = [
  "participant_address",
  "ref",
  "policy_address",
  "clock_address",
  "generation",
  "lateness_ms",
  "bound_ms",
  "recorded_at",
] as const;

/** A pacing deviation's row. */
export function pacingDeviationRow(record: PacingDeviationRecord): PacingDeviationRow {
  return {
    participant_address: record.participantAddress,
    ref: record.ref,
    policy_address: record.policyAddress,
    clock_address: record.clockAddress,
    generation: record.generation,
    lateness_ms: record.latenessMs,
    bound_ms: record.boundMs,
    recorded_at: record.recordedAt,
  };
}

/** The pacing deviation of a row. */
export function pacingDeviationRecord(row: PacingDeviationRow): PacingDeviationRecord {
  return {
    participantAddress: row.participant_address,
    ref: row.ref,
    policyAddress: row.policy_address,
    clockAddress: row.clock_address,
    generation: Number(row.generation),
    latenessMs: Number(row.lateness_ms),
    boundMs: Number(row.bound_ms),
    recordedAt: row.recorded_at,
  };
}

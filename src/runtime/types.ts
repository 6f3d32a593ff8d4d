import type { InvocationToolActionPort } from "../port/index.js";
import type { ParticipantResourceMeasurement, ResourceMeasurementRequirement } from "./v3/index.js";

/** RAES participant action result statuses. */
export const ParticipantActionStatus = {
  /** Accepted for execution, not yet terminal. */
  accepted: "accepted",
  /** Refused by the participant runtime. */
  rejected: "rejected",
  /** Deliberately not performed. */
  withheld: "withheld",
  /** Performed and achieved its intended effect. */
  succeeded: "succeeded",
  /** Performed and did not achieve its intended effect. */
  failed: "failed",
  /** Performed and achieved part of its intended effect. */
  partial_success: "partial_success",
  /** Effects are not known. */
  unknown: "unknown",
} as const;
/** A RAES participant action status. */
export type ParticipantActionStatus = (typeof ParticipantActionStatus)[keyof typeof ParticipantActionStatus];

/** Statuses an outer invocation may return from `admitAction`. */
export type OuterOutcomeStatus = "succeeded" | "failed" | "partial_success";

/** One due autonomous action, handed to `admitAction`. */
export interface ParticipantActionRequest {
  readonly actionInstanceId: string;
  readonly participantAddress: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly targetAddresses: readonly string[];
  readonly executionScopeRef: string;
  readonly executionGeneration: number;
  readonly observationPoint: string;
  readonly episodeId: string;
  readonly participantImplementationRef: string;
  readonly ordinal: number;
  /**
   * Under v3: what the native runtime must measure, one entry per reserved budget. The result must
   * return one `resourceMeasurements` entry for each (docs/guide/harness.md#autonomous-execution-v3).
   */
  readonly resourceMeasurementRequirements?: readonly ResourceMeasurementRequirement[];
}

/** What the participant sees of the shared clock and its own schedule at dispatch. */
export interface ParticipantSnapshot {
  readonly clockAddress: string;
  readonly segment: number;
  readonly tick: number;
  readonly episodeId: string;
  readonly executionGeneration: number;
  readonly attempts: number;
}

/** The typed result of one participant action. */
export interface ParticipantActionResult {
  readonly status: ParticipantActionStatus;
  readonly participantAddress: string;
  readonly episodeId: string;
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly observationPoint: string;
  readonly postStateDigest: string;
  readonly failureClass?: string;
  /** What the participant observed, in its own words (RAES's `observations`). */
  readonly observations?: readonly string[];
  readonly evidenceRefs?: readonly string[];
  /** Under v3: the measured vector, one entry per `resourceMeasurementRequirements` entry of the request. */
  readonly resourceMeasurements?: readonly ParticipantResourceMeasurement[];
}

/** A participant implementation's identity, as in RAES's implementation selection. */
export interface ImplementationIdentity {
  readonly name: string;
  readonly version: string;
}

/** What the manager hands each invocation besides the request: how it is told to stop. */
export interface InvocationControl {
  /** Fires when the covering offer's timeout expires; the port is already closed by then. */
  readonly signal: AbortSignal;
  /** The bound in milliseconds (the offer's timeout_seconds), when there is one. */
  readonly timeoutMs?: number;
  /** The invocation span's W3C trace context (`traceparent`, `tracestate`), when a tracer records it. */
  readonly traceContext?: Readonly<Record<string, string>>;
}

/** What a participant runtime must offer the manager. */
export interface ParticipantRuntime {
  /**
   * Names the implementation in history (`actor_provenance`
   * `participant-implementation:<name>@<version>`); without it, the policy's implementation ref and `0`.
   */
  readonly implementationIdentity?: ImplementationIdentity;
  admitAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    control?: InvocationControl,
  ): Promise<ParticipantActionResult> | ParticipantActionResult;
  /**
   * False on a runtime that can return no v3 measurement vector (`resourceMeasurements`): `RuntimeManager.open`
   * then refuses a v3 policy (`runtime.resource-measurement-unsupported`) instead of releasing every attempt.
   */
  readonly measuresResources?: boolean;
  /** Present and callable on runtimes that claim participant-invocation-tool-actions/v1. */
  attachInvocationToolActions?(port: InvocationToolActionPort): void | Promise<void>;
  /**
   * RAES's `reset_many`: resets these participants' episodes in one atomic step when their shared clock
   * resets. Required when the manifest's `time` declares `supports_coordinated_participant_reset`.
   */
  resetMany?(requests: readonly ParticipantEpisodeResetRequest[]): void | Promise<void>;
}

/** RAES's `ParticipantEpisodeResetRequest`: one participant's new episode at a coordinated reset. */
export interface ParticipantEpisodeResetRequest {
  readonly participant_address: string;
  readonly episode_id: string;
  readonly reason: string;
}

/** The outcome a harness reports for the outer invocation. */
export interface NativeOutcome {
  readonly status: OuterOutcomeStatus;
  readonly failureClass?: string;
  /** What the participant observed, in its own words. */
  readonly observations?: readonly string[];
  readonly evidenceRefs?: readonly string[];
}

/** The shared clock's state. */
export interface ClockState {
  readonly segment: number;
  readonly tick: number;
  readonly generation: number;
  readonly paused: boolean;
}

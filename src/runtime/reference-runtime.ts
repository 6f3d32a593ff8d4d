import { canonicalDigest } from "../compiler/index.js";
import type {
  InvocationControl,
  NativeOutcome,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
  ParticipantSnapshot,
} from "./types.js";

/** What `modelAction` gets besides the request: the episode, and the signal that ends it on timeout. */
export interface ModelActionContext {
  readonly episodeId: string;
  /** Aborts when the offer's timeout expires; stop then, since the result will be discarded. */
  readonly signal: AbortSignal;
  /** The offer's timeout_seconds in milliseconds, when one bounds the invocation. */
  readonly timeoutMs?: number;
  /** The invocation span's W3C trace context, to continue in the agent's own spans (MCP `_meta`). */
  readonly traceContext?: Readonly<Record<string, string>>;
}

// A signal for calls made outside a manager, which sets no deadline.
const NEVER_ABORTED = new AbortController().signal;

/**
 * The base class harness authors extend: override `modelAction` and return
 * `this.nativeExecution(...)`. Add `attachInvocationToolActions` to claim the tool-action composition.
 */
export abstract class ReferenceAutonomousParticipantRuntime implements ParticipantRuntime {
  /** Runs one due action; harness authors implement their agent here. */
  abstract modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: ModelActionContext,
  ): Promise<ParticipantActionResult>;

  /** Entry point the runtime manager calls for each due action. */
  async admitAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    control?: InvocationControl,
  ): Promise<ParticipantActionResult> {
    return this.modelAction(request, snapshot, {
      episodeId: request.episodeId,
      signal: control?.signal ?? NEVER_ABORTED,
      ...(control?.timeoutMs === undefined ? {} : { timeoutMs: control.timeoutMs }),
      ...(control?.traceContext === undefined ? {} : { traceContext: control.traceContext }),
    });
  }

  /** Builds the full typed result for the outer action from the harness's outcome. */
  nativeExecution(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    episodeId: string,
    outcome: NativeOutcome,
  ): ParticipantActionResult {
    const identity = {
      participantAddress: request.participantAddress,
      episodeId,
      actionInstanceId: request.actionInstanceId,
      actionContractAddress: request.actionContractAddress,
      observationPoint: request.observationPoint,
    };
    return {
      ...identity,
      status: outcome.status,
      ...(outcome.failureClass === undefined ? {} : { failureClass: outcome.failureClass }),
      ...(outcome.observations === undefined ? {} : { observations: [...outcome.observations] }),
      ...(outcome.evidenceRefs === undefined ? {} : { evidenceRefs: [...outcome.evidenceRefs] }),
      postStateDigest: canonicalDigest({
        ...identity,
        status: outcome.status,
        failureClass: outcome.failureClass,
        observations: outcome.observations,
        evidenceRefs: outcome.evidenceRefs,
        segment: snapshot.segment,
        tick: snapshot.tick,
        attempts: snapshot.attempts,
      }),
    };
  }
}

import { canonicalDigest } from "../compiler/index.js";
import type {
  NativeOutcome,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
  ParticipantSnapshot,
} from "./types.js";

/**
 * The base class harness authors extend: override `modelAction` and return
 * `this.nativeExecution(...)`. Add `attachInvocationToolActions` to claim the tool-action composition.
 */
export abstract class ReferenceAutonomousParticipantRuntime implements ParticipantRuntime {
  /** Runs one due action; harness authors implement their agent here. */
  abstract modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult>;

  /** Entry point the runtime manager calls for each due action. */
  async admitAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
  ): Promise<ParticipantActionResult> {
    return this.modelAction(request, snapshot, { episodeId: request.episodeId });
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

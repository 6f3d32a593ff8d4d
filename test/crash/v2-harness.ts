import {
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "../../src/index.js";
import type { InvocationToolActionPort } from "../../src/port/index.js";

/** The v2 crash runs' control: the example's, with a fixed public seed. */
export const V2_CRASH_CONTROL = {
  controlId: "green-activity-policy",
  namespace: "green-activity",
  publicSeed: "c4".repeat(32),
} as const;

/** Progression steps every v2 crash run covers. */
export const V2_CRASH_STEPS = 60;

/**
 * A harness whose outcome is a pure function of the attempt id, so a restarted process answers
 * exactly as the uninterrupted one; `forced` attempts fail with a non-retryable class.
 */
export class DeterministicV2Runtime extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  constructor(
    readonly forced: ReadonlySet<string> = new Set(),
    readonly onCall?: (request: ParticipantActionRequest) => Promise<void>,
  ) {
    super();
  }
  /** Claims the composition; this harness makes no tool calls. */
  attachInvocationToolActions(_port: InvocationToolActionPort): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    await this.onCall?.(request);
    let sum = 0;
    for (const ch of request.actionInstanceId) sum = (sum * 31 + ch.charCodeAt(0)) % 1009;
    const outcome: NativeOutcome = this.forced.has(request.actionInstanceId)
      ? { status: "failed", failureClass: "backend_error" }
      : sum % 3 === 0
        ? { status: "failed", failureClass: "target_unavailable" }
        : { status: "succeeded" };
    return this.nativeExecution(request, snapshot, context.episodeId, outcome);
  }
}

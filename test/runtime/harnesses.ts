import {
  type InvocationToolActionPort,
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "../../src/index.js";
import { CallbackFailures } from "../helpers/callback-failures.js";
import { oneToolCall } from "../helpers/tool-requests.js";

/** A harness that records what the manager handed it and answers with a fixed outcome. */
export class RecordingRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly requests: ParticipantActionRequest[] = [];
  readonly snapshots: ParticipantSnapshot[] = [];
  readonly attached: InvocationToolActionPort[] = [];
  outcome: NativeOutcome = { status: "succeeded" };
  toolCallsPerInvocation = 0;
  /** A refused tool call, kept because the manager would only record a failed invocation. */
  readonly failures = new CallbackFailures();

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.attached.push(port);
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.requests.push(request);
    this.snapshots.push(snapshot);
    const port = this.attached.find((p) => p.invocationActionInstanceId === request.actionInstanceId);
    await this.failures.guard(async () => {
      for (let i = 0; port && i < this.toolCallsPerInvocation; i += 1) await oneToolCall(port, `call-${i}`);
    });
    return this.nativeExecution(request, snapshot, episodeId, this.outcome);
  }
}

/** A runtime whose admitAction returns whatever the test says, to probe result validation. */
export class ScriptedResultRuntime {
  constructor(private readonly answer: (request: ParticipantActionRequest) => unknown) {}
  attachInvocationToolActions(): void {}
  async admitAction(request: ParticipantActionRequest): Promise<ParticipantActionResult> {
    return this.answer(request) as ParticipantActionResult;
  }
}

export { oneToolCall };

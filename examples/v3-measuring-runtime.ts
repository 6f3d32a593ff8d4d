/**
 * A v3 participant runtime for `raes run --runtime`: each action succeeds and measures its whole
 * resource vector, here exactly what was reserved (a real runtime reports what its meters measured,
 * never more than the reservation). docs/guide/harness.md#autonomous-execution-v3.
 */
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "raes-ts";

export default class MeasuringRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;

  /** The example manifest claims the tool-action composition; this runtime makes no tool calls. */
  attachInvocationToolActions(): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const result = this.nativeExecution(request, snapshot, context.episodeId, { status: "succeeded" });
    return {
      ...result,
      resourceMeasurements: (request.resourceMeasurementRequirements ?? []).map((r) => ({
        budgetStateRef: r.budgetStateRef,
        operationId: request.actionInstanceId,
        executionGeneration: request.executionGeneration,
        resourceKind: r.resourceKind,
        unit: r.unit,
        meterProfileRef: r.meterProfileRef,
        measured: r.reserved,
        evidenceRefs: [`meter:${request.actionInstanceId}:${r.budgetId}`],
      })),
    };
  }
}

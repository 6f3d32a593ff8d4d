import type {
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantSnapshot,
} from "../../src/index.js";
import { DeterministicV2Runtime } from "./v2-harness.js";

/** What the v3 crash runs' native runtime measures where it does not measure the reservation. */
export const V3_CRASH_MEASURE: Readonly<Record<string, number>> = { tokens: 450, storage: 2048 };

/** The v2 crash harness (outcome a pure function of the attempt id) returning the v3 measurement vector. */
export class DeterministicV3Runtime extends DeterministicV2Runtime {
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const result = await super.modelAction(request, snapshot, context);
    return {
      ...result,
      resourceMeasurements: (request.resourceMeasurementRequirements ?? []).map((r) => ({
        budgetStateRef: r.budgetStateRef,
        operationId: request.actionInstanceId,
        executionGeneration: request.executionGeneration,
        resourceKind: r.resourceKind,
        unit: r.unit,
        meterProfileRef: r.meterProfileRef,
        measured: V3_CRASH_MEASURE[r.budgetId] ?? r.reserved,
        evidenceRefs: [`evidence:${request.actionInstanceId}:${r.budgetId}`],
      })),
    };
  }
}

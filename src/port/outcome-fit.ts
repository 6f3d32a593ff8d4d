import type { ToolActionRecord } from "../records/index.js";
import type { ToolActionPortOptions } from "./port.js";
import type { ParticipantToolActionOutcome } from "./types.js";

/**
 * Whether an outcome may be recorded for `record` (docs/design.md §5): its participant, episode, action
 * instance, contract and observation point match, its evidence refs are declared evidence of the
 * boundary, and its failure class is one the contract declares (any, when it declares none).
 */
export function outcomeFits(
  options: Pick<ToolActionPortOptions, "identity" | "outcomeEvidence" | "failureClasses">,
  record: ToolActionRecord,
  outcome: ParticipantToolActionOutcome,
): boolean {
  const { identity } = options;
  if (
    outcome.participantAddress !== identity.participantAddress ||
    outcome.episodeId !== identity.episodeId ||
    outcome.actionInstanceId !== record.id ||
    outcome.actionContractAddress !== record.request.actionContractAddress ||
    outcome.observationPoint !== identity.observationPoint
  ) {
    return false;
  }
  const allowed = options.outcomeEvidence(record.request.observationBoundaryAddress);
  if (outcome.evidenceRefs?.some((ref) => !allowed?.has(ref))) return false;
  const classes = options.failureClasses(record.request.actionContractAddress);
  if (
    outcome.failureClass !== undefined &&
    classes &&
    classes.size > 0 &&
    !classes.has(outcome.failureClass)
  ) {
    return false;
  }
  return true;
}

import type { OuterResult } from "../history/index.js";
import type { ParticipantActionRequest } from "./types.js";

const OUTER_STATUSES = new Set(["succeeded", "failed", "partial_success", "withheld", "rejected"]);
const SUCCESS_STATUSES = new Set(["succeeded", "partial_success"]);

/** True when an outer status counts as a successful operation. */
export function isSuccessfulStatus(status: string): boolean {
  return SUCCESS_STATUSES.has(status);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/**
 * The outer result when it is valid for the request: matching identity, a terminal status, a
 * post-state digest, and only declared, non-hidden evidence. Undefined otherwise.
 */
export function validateOuterResult(
  value: unknown,
  request: ParticipantActionRequest,
  allowedEvidence: ReadonlySet<string> | undefined,
): OuterResult | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const r = value as Record<string, unknown>;
  if (
    r.participantAddress !== request.participantAddress ||
    r.episodeId !== request.episodeId ||
    r.actionInstanceId !== request.actionInstanceId ||
    r.actionContractAddress !== request.actionContractAddress ||
    r.observationPoint !== request.observationPoint
  ) {
    return undefined;
  }
  if (typeof r.status !== "string" || !OUTER_STATUSES.has(r.status)) return undefined;
  if (!isNonEmptyString(r.postStateDigest)) return undefined;
  if (r.failureClass !== undefined && !isNonEmptyString(r.failureClass)) return undefined;
  const observations = r.observations;
  if (
    observations !== undefined &&
    !(Array.isArray(observations) && observations.every((o) => isNonEmptyString(o)))
  )
    return undefined;
  const evidence = r.evidenceRefs;
  if (evidence !== undefined) {
    if (
      !Array.isArray(evidence) ||
      !evidence.every((e) => typeof e === "string" && allowedEvidence?.has(e))
    ) {
      return undefined;
    }
  }
  return {
    status: r.status,
    postStateDigest: r.postStateDigest,
    ...(r.failureClass === undefined ? {} : { failureClass: r.failureClass }),
    ...(observations === undefined ? {} : { observations: [...(observations as string[])] }),
    ...(evidence === undefined ? {} : { evidenceRefs: [...(evidence as string[])] }),
  };
}

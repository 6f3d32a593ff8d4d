import { canonicalDigest } from "../../compiler/index.js";
import type { OuterResult } from "../../history/index.js";
import type { ParticipantActionRequest, ParticipantSnapshot } from "../types.js";

const OUTER_STATUSES = new Set(["succeeded", "failed", "partial_success", "withheld", "rejected"]);
const SUCCESS_STATUSES = new Set(["succeeded", "partial_success"]);
const IDENTITY_FIELDS = [
  "participantAddress",
  "episodeId",
  "actionInstanceId",
  "actionContractAddress",
  "observationPoint",
] as const;

/** True when an outer status counts as a successful operation. */
export function isSuccessfulStatus(status: string): boolean {
  return SUCCESS_STATUSES.has(status);
}

/** The checked outer result, or which field made it invalid and why. */
export type OuterResultCheck =
  | { readonly ok: true; readonly result: OuterResult }
  | { readonly ok: false; readonly problem: string };

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

// Values are shown cut short: a harness's answer may be large, and the point is the field's name.
function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const invalid = (problem: string): OuterResultCheck => ({ ok: false, problem });

/**
 * Checks an outer result against the request: matching identity, a terminal status, a post-state
 * digest, and only declared, non-hidden evidence. An invalid one names the field that is wrong.
 */
export function validateOuterResult(
  value: unknown,
  request: ParticipantActionRequest,
  allowedEvidence: ReadonlySet<string> | undefined,
): OuterResultCheck {
  if (value === null || typeof value !== "object")
    return invalid(`the result is not an object: ${shown(value)}`);
  const r = value as Record<string, unknown>;
  for (const field of IDENTITY_FIELDS) {
    if (r[field] !== request[field])
      return invalid(`${field} is ${shown(r[field])}, not the request's ${shown(request[field])}`);
  }
  if (typeof r.status !== "string" || !OUTER_STATUSES.has(r.status))
    return invalid(`status ${shown(r.status)} is not one of ${[...OUTER_STATUSES].join(", ")}`);
  if (!isNonEmptyString(r.postStateDigest))
    return invalid(`postStateDigest ${shown(r.postStateDigest)} is not a non-empty string`);
  if (r.failureClass !== undefined && !isNonEmptyString(r.failureClass))
    return invalid(`failureClass ${shown(r.failureClass)} is not a non-empty string`);
  const observations = r.observations;
  if (
    observations !== undefined &&
    !(Array.isArray(observations) && observations.every((o) => isNonEmptyString(o)))
  )
    return invalid(`observations ${shown(observations)} is not a list of non-empty strings`);
  const evidence = r.evidenceRefs;
  if (evidence !== undefined) {
    if (!Array.isArray(evidence)) return invalid(`evidenceRefs ${shown(evidence)} is not an array`);
    const hidden = evidence.find((e) => typeof e !== "string" || !allowedEvidence?.has(e));
    if (hidden !== undefined)
      return invalid(`evidenceRefs cites ${shown(hidden)}, which the observation boundary does not expose`);
  }
  return {
    ok: true,
    result: {
      status: r.status,
      postStateDigest: r.postStateDigest,
      ...(r.failureClass === undefined ? {} : { failureClass: r.failureClass }),
      ...(observations === undefined ? {} : { observations: [...(observations as string[])] }),
      ...(evidence === undefined ? {} : { evidenceRefs: [...(evidence as string[])] }),
    },
  };
}

/** The outer result the runtime records when the offer's timeout expired: `failed`, class `timeout`. */
export function timeoutResult(request: ParticipantActionRequest, snapshot: ParticipantSnapshot): OuterResult {
  return {
    status: "failed",
    failureClass: "timeout",
    postStateDigest: canonicalDigest({
      participantAddress: request.participantAddress,
      episodeId: request.episodeId,
      actionInstanceId: request.actionInstanceId,
      actionContractAddress: request.actionContractAddress,
      observationPoint: request.observationPoint,
      status: "failed",
      failureClass: "timeout",
      segment: snapshot.segment,
      tick: snapshot.tick,
      attempts: snapshot.attempts,
    }),
  };
}

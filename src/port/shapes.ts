import type { ToolActionRecord } from "../records/index.js";
import type {
  ParticipantToolActionOutcome,
  ParticipantToolActionRequest,
  ToolOutcomeStatus,
} from "./types.js";

/** The longest id or address a request may carry. */
export const MAX_ID_LENGTH = 256;
/** The most targets one tool action may name. */
export const MAX_TARGETS = 64;

const REQUEST_STRING_FIELDS = [
  "toolCallId",
  "invocationActionInstanceId",
  "participantAddress",
  "episodeId",
  "participantImplementationRef",
  "toolAffordanceAddress",
  "actionContractAddress",
  "observationBoundaryAddress",
  "executionScopeRef",
] as const;
const REQUEST_FIELDS = new Set<string>([
  ...REQUEST_STRING_FIELDS,
  "targetAddresses",
  "executionGeneration",
  "toolName",
]);

const OUTCOME_STRING_FIELDS = [
  "participantAddress",
  "episodeId",
  "actionInstanceId",
  "actionContractAddress",
  "observationPoint",
] as const;
const OUTCOME_FIELDS = new Set<string>([...OUTCOME_STRING_FIELDS, "status", "failureClass", "evidenceRefs"]);
const OUTCOME_STATUSES = new Set<string>([
  "succeeded",
  "failed",
  "partial_success",
] satisfies ToolOutcomeStatus[]);

/** True for a non-empty string of at most 256 characters. */
export function isBoundedId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_ID_LENGTH;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

function isIdList(value: unknown, min: number, max: number): value is string[] {
  return Array.isArray(value) && value.length >= min && value.length <= max && value.every(isBoundedId);
}

/** Rule 0: the request as a closed, well-typed shape, copied so later mutation by the caller cannot reach us. */
export function parseToolActionRequest(value: unknown): ParticipantToolActionRequest | undefined {
  if (!isPlainObject(value) || !hasOnlyKeys(value, REQUEST_FIELDS)) return undefined;
  for (const field of REQUEST_STRING_FIELDS) if (!isBoundedId(value[field])) return undefined;
  if (!isIdList(value.targetAddresses, 1, MAX_TARGETS)) return undefined;
  const generation = value.executionGeneration;
  // Any integer is well-formed; one that is not the port's generation fails rule 3b, not rule 0.
  if (typeof generation !== "number" || !Number.isSafeInteger(generation)) return undefined;
  if (value.toolName !== undefined && !isBoundedId(value.toolName)) return undefined;
  const v = value as unknown as ParticipantToolActionRequest;
  return Object.freeze({
    toolCallId: v.toolCallId,
    invocationActionInstanceId: v.invocationActionInstanceId,
    participantAddress: v.participantAddress,
    episodeId: v.episodeId,
    participantImplementationRef: v.participantImplementationRef,
    toolAffordanceAddress: v.toolAffordanceAddress,
    actionContractAddress: v.actionContractAddress,
    observationBoundaryAddress: v.observationBoundaryAddress,
    targetAddresses: Object.freeze([...v.targetAddresses]),
    executionScopeRef: v.executionScopeRef,
    executionGeneration: generation,
    ...(v.toolName === undefined ? {} : { toolName: v.toolName }),
  });
}

/**
 * canonicalJson of a parsed request, without its sorted copy: the parse copies only the request's
 * fields, all strings, a string list and an integer, so their sorted order is fixed and known here.
 * The port digests every admitted request, and the copy and sort cost as much again as this.
 */
export function requestCanonicalJson(r: ParticipantToolActionRequest): string {
  return JSON.stringify({
    actionContractAddress: r.actionContractAddress,
    episodeId: r.episodeId,
    executionGeneration: r.executionGeneration,
    executionScopeRef: r.executionScopeRef,
    invocationActionInstanceId: r.invocationActionInstanceId,
    observationBoundaryAddress: r.observationBoundaryAddress,
    participantAddress: r.participantAddress,
    participantImplementationRef: r.participantImplementationRef,
    targetAddresses: r.targetAddresses,
    toolAffordanceAddress: r.toolAffordanceAddress,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
  });
}

/** The outcome as a closed, well-typed shape, or undefined. */
export function parseToolActionOutcome(value: unknown): ParticipantToolActionOutcome | undefined {
  if (!isPlainObject(value) || !hasOnlyKeys(value, OUTCOME_FIELDS)) return undefined;
  for (const field of OUTCOME_STRING_FIELDS) if (!isBoundedId(value[field])) return undefined;
  if (typeof value.status !== "string" || !OUTCOME_STATUSES.has(value.status)) return undefined;
  if (value.failureClass !== undefined && !isBoundedId(value.failureClass)) return undefined;
  if (value.evidenceRefs !== undefined && !isIdList(value.evidenceRefs, 0, MAX_TARGETS)) return undefined;
  return value as unknown as ParticipantToolActionOutcome;
}

/** The record fields an accepted outcome adds: its failure class and evidence refs, when given. */
export function outcomeFields(outcome: ParticipantToolActionOutcome): Partial<ToolActionRecord> {
  return {
    ...(outcome.failureClass === undefined ? {} : { failureClass: outcome.failureClass }),
    ...(outcome.evidenceRefs === undefined ? {} : { evidenceRefs: [...outcome.evidenceRefs] }),
  };
}

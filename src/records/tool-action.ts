import { type ApprovalRecord, ApprovalState } from "./approval.js";

/** How an operator resolved an indeterminate tool action. */
export const ToolActionResolution = {
  /** The operator confirmed the effect happened. */
  effect_confirmed: "effect_confirmed",
  /** The operator confirmed the effect did not happen. */
  effect_absent: "effect_absent",
} as const;
/** A resolution decision. */
export type ToolActionResolution = (typeof ToolActionResolution)[keyof typeof ToolActionResolution];

/** A recorded resolution of an indeterminate tool action. */
export interface ResolutionRecord {
  readonly resolution: ToolActionResolution;
  readonly note: string;
  readonly resolvedAt: string;
  /** Who resolved it (docs/guide/operations.md); absent on resolutions recorded before operators were named. */
  readonly operator?: string;
}

/** How a tool action finally settled. */
export const ToolActionSettlement = {
  /** The tool ran and reported success. */
  succeeded: "succeeded",
  /** The tool ran and reported failure. */
  failed: "failed",
  /** The tool ran and achieved part of its effect. */
  partial_success: "partial_success",
  /** The tool never ran: cancelled, or undispatched when the invocation ended. */
  withheld: "withheld",
  /** The tool may have had effects that were never reported. */
  indeterminate: "indeterminate",
} as const;
/** A tool action settlement. */
export type ToolActionSettlement = (typeof ToolActionSettlement)[keyof typeof ToolActionSettlement];

/** Why a tool action's effects are unknown when raes-ts itself settled it indeterminate (`reportUnknown` gives its own). */
export const UnknownReason = {
  /**
   * No outcome was recorded after dispatch, and recovery settled it: the runtime process ended (killed,
   * crashed, lost power), another process took the participant over, or the invocation's close could not
   * be committed.
   */
  runtime_interrupted: "runtime_interrupted",
  /**
   * The invocation returned after dispatch and before an outcome or `reportUnknown` (docs/design.md §5: the
   * port settles it at close); the harness never said what happened.
   */
  invocation_returned_without_outcome: "invocation_returned_without_outcome",
} as const;
/** An unknown reason raes-ts gives. */
export type UnknownReason = (typeof UnknownReason)[keyof typeof UnknownReason];

/** Why raes-ts cancelled an admitted tool action before dispatch, so it settled `withheld`. */
export const WithheldReason = {
  /** The call's arguments did not match the gateway map's `arguments` schema; the upstream never saw it. */
  arguments_rejected: "arguments_rejected",
  /** An operator denied the held call (`raes deny`); the upstream never saw it. */
  approval_denied: "approval_denied",
  /**
   * No operator decided on the held call before its `timeout_seconds`, its invocation closed, or its
   * runtime process ended (recovery); the upstream never saw it.
   */
  approval_expired: "approval_expired",
  /**
   * The claim was stored, but its answer was lost on the way back (the connection dropped after the
   * commit): its caller heard a refusal, so the tool never ran. Settled when the port reads it back.
   */
  claim_unanswered: "claim_unanswered",
} as const;
/** A withheld reason raes-ts gives. */
export type WithheldReason = (typeof WithheldReason)[keyof typeof WithheldReason];

/** Where a tool action is in its lifecycle. */
export const ToolActionPhase = {
  /** The claim is recorded; the tool must not run yet. */
  admitted: "admitted",
  /** Dispatch is recorded; the tool may be running. */
  dispatched: "dispatched",
  /** A settlement is recorded; nothing can change it. */
  settled: "settled",
} as const;
/** A tool action phase. */
export type ToolActionPhase = (typeof ToolActionPhase)[keyof typeof ToolActionPhase];

/** A tool call's claim to act, as the harness sends it. It has no place for tool arguments or results. */
export interface ParticipantToolActionRequest {
  readonly toolCallId: string;
  readonly invocationActionInstanceId: string;
  readonly participantAddress: string;
  readonly episodeId: string;
  readonly participantImplementationRef: string;
  readonly toolAffordanceAddress: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly targetAddresses: readonly string[];
  readonly executionScopeRef: string;
  readonly executionGeneration: number;
  /** The MCP tool name, when `raes mcp-gateway` admitted the call (a raes-ts field; never arguments). */
  readonly toolName?: string;
}

/** One tool action (a child operation), durably. Holds no tool arguments or results. */
export interface ToolActionRecord {
  readonly id: string;
  readonly invocationId: string;
  readonly participantAddress: string;
  readonly toolCallId: string;
  readonly admissionOrdinal: number;
  /** Canonical digest of the request, for idempotency after restart. */
  readonly requestDigest: string;
  readonly request: ParticipantToolActionRequest;
  readonly phase: ToolActionPhase;
  readonly settlement?: ToolActionSettlement;
  readonly failureClass?: string;
  readonly evidenceRefs?: readonly string[];
  readonly unknownReason?: string;
  /** Why it was cancelled before dispatch, when the canceller said (a short code, never arguments). */
  readonly withheldReason?: string;
  readonly resolution?: ResolutionRecord;
  /** Set when the gateway held the call for an operator's approval (schema step 16). */
  readonly approval?: ApprovalRecord;
  /** When the claim was admitted (microsecond ISO-8601). */
  readonly admittedAt: string;
  /** When dispatch was recorded; absent while admitted, and for an action withheld before dispatch. */
  readonly dispatchedAt?: string;
  /** When the settlement was recorded; absent when recovery settled it (nobody saw it settle). */
  readonly settledAt?: string;
  /** When recovery settled it (its process ended or lost it, or its invocation's close could not be committed); its other times stay the last ones known. */
  readonly recoveredAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The record moved to a new phase at `at`, with the time of that phase (dispatch or settlement) kept. */
export function toolActionAt(
  record: ToolActionRecord,
  state: { readonly phase: ToolActionPhase; readonly settlement?: ToolActionSettlement },
  at: string,
): ToolActionRecord {
  if (state.phase === record.phase) return record;
  return {
    ...record,
    phase: state.phase,
    ...(state.settlement === undefined ? {} : { settlement: state.settlement }),
    ...(state.phase === ToolActionPhase.dispatched ? { dispatchedAt: at } : {}),
    ...(state.phase === ToolActionPhase.settled ? { settledAt: at } : {}),
    updatedAt: at,
  };
}

/**
 * What a claim that never ran because its caller heard a refusal (`claim_unanswered`) records with its
 * settlement: `withheldReason` when withheld, `failureClass` when failed (it was recorded dispatched).
 */
export function unansweredClaimFields(
  settlement: string | undefined,
): Pick<ToolActionRecord, "withheldReason" | "failureClass"> {
  if (settlement === "withheld") return { withheldReason: WithheldReason.claim_unanswered };
  if (settlement === "failed") return { failureClass: WithheldReason.claim_unanswered };
  return {};
}

/** The withheld reason a held call's approval gives its settlement: denied or expired; else none. */
export function approvalWithheldReason(approval: ApprovalRecord | undefined): WithheldReason | undefined {
  if (approval?.state === ApprovalState.denied) return WithheldReason.approval_denied;
  if (approval?.state === ApprovalState.expired || approval?.state === ApprovalState.pending)
    return WithheldReason.approval_expired;
  return undefined;
}

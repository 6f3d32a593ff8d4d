import type { ParticipantToolActionRequest, ToolActionRecord } from "../records/index.js";
import type { ParticipantToolActionRefusal } from "./codes.js";

export type { ParticipantToolActionRequest } from "../records/index.js";

/** Statuses a tool outcome may report through `complete`. */
export type ToolOutcomeStatus = "succeeded" | "failed" | "partial_success";

/** A tool action's outcome. It carries identity and evidence refs only, never tool results. */
export interface ParticipantToolActionOutcome {
  readonly status: ToolOutcomeStatus;
  readonly participantAddress: string;
  readonly episodeId: string;
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly observationPoint: string;
  readonly failureClass?: string;
  readonly evidenceRefs?: readonly string[];
}

/** The answer to `admit`. */
export type AdmitDecision =
  | { readonly admitted: true; readonly actionInstanceId: string }
  | { readonly admitted: false; readonly refusal: ParticipantToolActionRefusal };

/** The answer to `dispatch`; start the tool only on `accepted: true`. */
export type DispatchReceipt =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly refusal: ParticipantToolActionRefusal };

/** The answer to `complete`, `reportUnknown` and `cancel`. */
export type PortAck =
  | { readonly ok: true }
  | { readonly ok: false; readonly refusal: ParticipantToolActionRefusal };

/** The read-only identity of one invocation's port. */
export interface ToolActionPortIdentity {
  readonly invocationActionInstanceId: string;
  readonly participantAddress: string;
  readonly episodeId: string;
  readonly participantImplementationRef: string;
  readonly executionScopeRef: string;
  readonly executionGeneration: number;
  readonly observationPoint: string;
}

/** The port one autonomous invocation's harness uses to admit, dispatch and settle its tool calls. */
export interface InvocationToolActionPort extends ToolActionPortIdentity {
  admit(request: ParticipantToolActionRequest): Promise<AdmitDecision>;
  dispatch(actionInstanceId: string): Promise<DispatchReceipt>;
  complete(actionInstanceId: string, outcome: ParticipantToolActionOutcome): Promise<PortAck>;
  reportUnknown(actionInstanceId: string, reason: string): Promise<PortAck>;
  cancel(actionInstanceId: string): Promise<PortAck>;
}

/**
 * A call its caller refused before asking the port (an MCP gateway's `tool_not_mapped`, say). It
 * leaves no record and no history, as a port refusal does; the invocation counts it with the port's
 * refusals (docs/guide/history.md), so the operation and the timeline show it.
 */
export interface RefusalNote {
  /** The caller's refusal code. */
  readonly code: string;
  /** The tool the call named, when it named one. */
  readonly toolName?: string;
}

/** Told of each durable step and each refusal, for tracing; it observes and never steers. */
export interface ToolActionObserver {
  admitted(record: ToolActionRecord): void;
  dispatched(record: ToolActionRecord): void;
  settled(record: ToolActionRecord): void;
  /** `actionInstanceId` is set when the refused call named an action this port admitted. */
  refused(
    refusal: ParticipantToolActionRefusal,
    call: PortCall,
    actionInstanceId: string | undefined,
    /** The MCP tool name or tool affordance the refused call named, when it named one. */
    tool?: string,
  ): void;
  /** Told of a call its caller refused before asking the port (an MCP gateway's own refusal). */
  noted?(note: RefusalNote): void;
}

/** The port call a refusal answered. */
export type PortCall = "admit" | "dispatch" | "complete" | "reportUnknown" | "cancel";

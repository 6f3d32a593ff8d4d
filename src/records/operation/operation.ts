import type { ApprovalRecord } from "../approval.js";
import type { RefusedCall } from "../scheduler.js";
import type { ResolutionRecord } from "../tool-action.js";

/** States of a scheduler or tool-action operation. */
export const OperationState = {
  /** Admitted; nothing has run. */
  accepted: "accepted",
  /** Dispatched or invoking; effects may be happening. */
  running: "running",
  /** Finished with success (or partial success, see settlement). */
  succeeded: "succeeded",
  /** Finished with failure, or the attempt was consumed without a valid result. */
  failed: "failed",
  /** Withheld before dispatch; no effect ran. */
  cancelled: "cancelled",
  /** Dispatched with no outcome; effects unknown until explicitly resolved. */
  indeterminate: "indeterminate",
} as const;
/** An operation state. */
export type OperationState = (typeof OperationState)[keyof typeof OperationState];

/** The two kinds of operation. */
export const OperationKind = {
  /** One outer autonomous invocation. */
  scheduler_invocation: "scheduler_invocation",
  /** One tool action, a child of its invocation. */
  tool_action: "tool_action",
} as const;
/** An operation kind. */
export type OperationKind = (typeof OperationKind)[keyof typeof OperationKind];

/** RAES's runtime domain of an operation; every raes-ts operation is participant work. */
export const RuntimeDomain = {
  /** Participant execution: scheduler invocations and their tool actions. */
  participant: "participant",
} as const;
/** A runtime domain. */
export type RuntimeDomain = (typeof RuntimeDomain)[keyof typeof RuntimeDomain];

/** RAES's diagnostic severities. */
export const DiagnosticSeverity = {
  /** The operation failed or was refused for this reason. */
  error: "error",
  /** Something went wrong inside an operation that still ran (a refused call, effects unknown). */
  warning: "warning",
  /** Informational. */
  info: "info",
} as const;
/** A diagnostic severity. */
export type DiagnosticSeverity = (typeof DiagnosticSeverity)[keyof typeof DiagnosticSeverity];

/** raes-ts's codes for the diagnostics of an operation (RAES's diagnostic code syntax: lowercase, `.` and `-`). */
export const OperationDiagnosticCode = {
  /** An outer invocation's port or gateway refused calls; the message names the refusal code and count. */
  call_refused: "operation.call-refused",
  /** The operation ended failed (a failed invocation, or a tool action that settled failed). */
  failed: "operation.failed",
  /** A tool action's effects are unknown (settled indeterminate); the message says why. */
  effects_unknown: "operation.effects-unknown",
  /** A tool action was cancelled before dispatch; the message says why when raes-ts gave a reason. */
  withheld: "operation.withheld",
  /**
   * Recovery settled the operation: its runtime process ended, another process took its participant
   * over, or the same process recovered it after a close it could not commit; its end time is unknown.
   */
  recovered: "operation.recovered",
} as const;
/** An operation diagnostic code. */
export type OperationDiagnosticCode = (typeof OperationDiagnosticCode)[keyof typeof OperationDiagnosticCode];

/** RAES's structured operation diagnostic (`code`, `domain`, `address`, `message`, `severity`). */
export interface OperationDiagnostic {
  readonly code: string;
  readonly domain: RuntimeDomain;
  /** The compiled address it is about: the participant. */
  readonly address: string;
  readonly message: string;
  readonly severity: DiagnosticSeverity;
}

/** An operation as `getOperation` returns it. */
export interface Operation {
  readonly id: string;
  /** RAES's runtime domain: always `participant` (docs/raes-mapping.md#operations). */
  readonly domain: RuntimeDomain;
  /** RAES's diagnostics: refused calls, why effects are unknown or an action was withheld; empty when none. */
  readonly diagnostics: readonly OperationDiagnostic[];
  /** RAES's `changed_addresses`: the participant whose state the operation changes. */
  readonly changedAddresses: readonly string[];
  readonly parentId: string | null;
  readonly kind: OperationKind;
  readonly state: OperationState;
  readonly settlement?: string;
  readonly resolution?: ResolutionRecord;
  /** Outer invocations: when the invocation started and ended. */
  readonly startedAt?: string;
  readonly endedAt?: string;
  /** Tool actions: when the claim was admitted, dispatched and settled. */
  readonly admittedAt?: string;
  readonly dispatchedAt?: string;
  readonly settledAt?: string;
  /** Both kinds: when recovery settled it (its process ended or lost it, or its close could not be committed); its end time is then unknown. */
  readonly recoveredAt?: string;
  /** Outer invocations: refused port calls per refusal code (docs/design.md §10). */
  readonly refusals?: Readonly<Record<string, number>>;
  /** Outer invocations: the first refused calls with their code, time and tool. */
  readonly refusedCalls?: readonly RefusedCall[];
  /** Tool actions: the MCP tool name, when `raes mcp-gateway` admitted the call. */
  readonly toolName?: string;
  /** Tool actions: why the effects are unknown, as `reportUnknown` gave it. */
  readonly unknownReason?: string;
  /** Tool actions: why raes-ts cancelled it before dispatch (`withheld`), when it said. */
  readonly withheldReason?: string;
  /** Tool actions: the approval it was held for, and its decision (docs/guide/approvals.md). */
  readonly approval?: ApprovalRecord;
  readonly updatedAt: string;
}

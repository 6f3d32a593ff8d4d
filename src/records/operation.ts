import type { ApprovalRecord } from "./approval.js";
import type { RefusedCall } from "./scheduler.js";

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

/** An operation as `getOperation` returns it. */
export interface Operation {
  readonly id: string;
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
  /** Both kinds: when recovery settled it after its runtime process ended (its end time is then unknown). */
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

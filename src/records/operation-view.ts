import { type Operation, OperationKind, type OperationState } from "./operation.js";
import type { InvocationRecord } from "./scheduler.js";
import type { ToolActionRecord } from "./tool-action.js";

const SETTLED_STATE: Readonly<Record<string, OperationState>> = {
  succeeded: "succeeded",
  partial_success: "succeeded",
  failed: "failed",
  withheld: "cancelled",
  indeterminate: "indeterminate",
};

/** The operation view of an outer invocation. */
export function operationFromInvocation(invocation: InvocationRecord): Operation {
  return {
    id: invocation.id,
    parentId: null,
    kind: OperationKind.scheduler_invocation,
    state: invocation.state,
    startedAt: invocation.startedAt,
    ...(invocation.endedAt === undefined ? {} : { endedAt: invocation.endedAt }),
    ...(invocation.recoveredAt === undefined ? {} : { recoveredAt: invocation.recoveredAt }),
    ...(invocation.refusals === undefined ? {} : { refusals: invocation.refusals }),
    ...(invocation.refusedCalls === undefined ? {} : { refusedCalls: invocation.refusedCalls }),
    updatedAt: invocation.updatedAt,
  };
}

/** The operation state a tool action's phase and settlement imply. */
export function toolActionOperationState(
  action: Pick<ToolActionRecord, "phase" | "settlement">,
): OperationState {
  if (action.phase === "admitted") return "accepted";
  if (action.phase === "dispatched") return "running";
  return SETTLED_STATE[action.settlement ?? ""] ?? "failed";
}

/** The operation view of a tool action, a child of its invocation. */
export function operationFromToolAction(action: ToolActionRecord): Operation {
  return {
    id: action.id,
    parentId: action.invocationId,
    kind: OperationKind.tool_action,
    state: toolActionOperationState(action),
    ...(action.settlement === undefined ? {} : { settlement: action.settlement }),
    ...(action.resolution === undefined ? {} : { resolution: action.resolution }),
    admittedAt: action.admittedAt,
    ...(action.dispatchedAt === undefined ? {} : { dispatchedAt: action.dispatchedAt }),
    ...(action.settledAt === undefined ? {} : { settledAt: action.settledAt }),
    ...(action.recoveredAt === undefined ? {} : { recoveredAt: action.recoveredAt }),
    ...(action.request.toolName === undefined ? {} : { toolName: action.request.toolName }),
    ...(action.unknownReason === undefined ? {} : { unknownReason: action.unknownReason }),
    ...(action.withheldReason === undefined ? {} : { withheldReason: action.withheldReason }),
    ...(action.approval === undefined ? {} : { approval: action.approval }),
    updatedAt: action.updatedAt,
  };
}

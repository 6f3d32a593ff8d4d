import type { InvocationRecord } from "../scheduler.js";
import { type ToolActionRecord, WithheldReason } from "../tool-action.js";
import {
  DiagnosticSeverity,
  type Operation,
  type OperationDiagnostic,
  OperationDiagnosticCode,
  OperationKind,
  type OperationState,
  RuntimeDomain,
} from "./operation.js";

const SETTLED_STATE: Readonly<Record<string, OperationState>> = {
  succeeded: "succeeded",
  partial_success: "succeeded",
  failed: "failed",
  withheld: "cancelled",
  indeterminate: "indeterminate",
};

function diagnostic(
  code: OperationDiagnosticCode,
  address: string,
  message: string,
  severity: DiagnosticSeverity,
): OperationDiagnostic {
  return { code, domain: RuntimeDomain.participant, address, message, severity };
}

/** RAES's diagnostics of an outer invocation: its failure, its refused calls (by code, bytewise), its recovery. */
function invocationDiagnostics(invocation: InvocationRecord): OperationDiagnostic[] {
  const at = invocation.participantAddress;
  const out: OperationDiagnostic[] = [];
  if (invocation.state === "failed")
    out.push(
      diagnostic(OperationDiagnosticCode.failed, at, "the invocation failed", DiagnosticSeverity.error),
    );
  const refusals = Object.entries(invocation.refusals ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [code, count] of refusals)
    out.push(
      diagnostic(
        OperationDiagnosticCode.call_refused,
        at,
        `${count} call${count === 1 ? "" : "s"} refused with ${code}`,
        DiagnosticSeverity.warning,
      ),
    );
  if (invocation.recoveredAt !== undefined)
    out.push(
      diagnostic(
        OperationDiagnosticCode.recovered,
        at,
        "consumed by recovery: its runtime process ended, lost its participant, or could not commit its close",
        DiagnosticSeverity.warning,
      ),
    );
  return out;
}

/** Recovered as a claim whose caller heard a refusal: only the process that heard it knows that. */
function recoveredUnanswered(action: ToolActionRecord): boolean {
  return (
    action.withheldReason === WithheldReason.claim_unanswered ||
    action.failureClass === WithheldReason.claim_unanswered
  );
}

/** RAES's diagnostics of a tool action: why it failed, was withheld or has unknown effects; its recovery. */
function toolActionDiagnostics(action: ToolActionRecord): OperationDiagnostic[] {
  const at = action.participantAddress;
  const out: OperationDiagnostic[] = [];
  if (action.settlement === "failed")
    out.push(
      diagnostic(
        OperationDiagnosticCode.failed,
        at,
        action.failureClass === undefined ? "the tool action failed" : `failed: ${action.failureClass}`,
        DiagnosticSeverity.error,
      ),
    );
  if (action.settlement === "withheld")
    out.push(
      diagnostic(
        OperationDiagnosticCode.withheld,
        at,
        action.withheldReason === undefined
          ? "withheld before dispatch"
          : `withheld: ${action.withheldReason}`,
        DiagnosticSeverity.warning,
      ),
    );
  if (action.settlement === "indeterminate")
    out.push(
      diagnostic(
        OperationDiagnosticCode.effects_unknown,
        at,
        action.unknownReason === undefined ? "effects unknown" : `effects unknown: ${action.unknownReason}`,
        action.resolution === undefined ? DiagnosticSeverity.error : DiagnosticSeverity.info,
      ),
    );
  if (action.recoveredAt !== undefined)
    out.push(
      diagnostic(
        OperationDiagnosticCode.recovered,
        at,
        recoveredUnanswered(action)
          ? "settled by recovery in the runtime process whose store lost the claim's answer (its caller heard a refusal)"
          : "settled by recovery: its runtime process ended, lost its participant, or could not commit its invocation's close",
        DiagnosticSeverity.warning,
      ),
    );
  return out;
}

/** The operation view of an outer invocation. */
export function operationFromInvocation(invocation: InvocationRecord): Operation {
  return {
    id: invocation.id,
    domain: RuntimeDomain.participant,
    parentId: null,
    kind: OperationKind.scheduler_invocation,
    state: invocation.state,
    diagnostics: invocationDiagnostics(invocation),
    changedAddresses: [invocation.participantAddress],
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
    domain: RuntimeDomain.participant,
    parentId: action.invocationId,
    kind: OperationKind.tool_action,
    state: toolActionOperationState(action),
    diagnostics: toolActionDiagnostics(action),
    changedAddresses: [action.participantAddress],
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

import type { OperationOwner, OwnedOperationEntry } from "../../operations/index.js";
import type { ApprovalRecord, Operation } from "../../records/index.js";

// The wire (`--json`) forms of operations that `raes operation`, `raes operations` and `raes resolve` print.

/**
 * The record times of the operation's kind: invocation start/end, or tool-action admit/dispatch/settle;
 * and `recovered_at`, when recovery settled it (its process ended or lost it, or its close failed; its end is then unknown: null).
 */
function timesToWire(operation: Operation): Record<string, string | null> {
  const recovered = { recovered_at: operation.recoveredAt ?? null };
  if (operation.kind === "scheduler_invocation")
    return { started_at: operation.startedAt ?? null, ended_at: operation.endedAt ?? null, ...recovered };
  return {
    admitted_at: operation.admittedAt ?? null,
    dispatched_at: operation.dispatchedAt ?? null,
    settled_at: operation.settledAt ?? null,
    ...recovered,
  };
}

/** What only one kind records: refusal counts and the first refused calls (invocations), MCP tool name and unknown reason (tool actions). */
function kindFieldsToWire(operation: Operation): Record<string, unknown> {
  if (operation.kind === "scheduler_invocation")
    return {
      refusals: operation.refusals ?? {},
      refused_calls: (operation.refusedCalls ?? []).map((c) => ({
        code: c.code,
        at: c.at,
        tool: c.tool ?? null,
        call: c.call,
      })),
    };
  return {
    tool_name: operation.toolName ?? null,
    unknown_reason: operation.unknownReason ?? null,
    withheld_reason: operation.withheldReason ?? null,
    ...approvalToWire(operation.approval),
  };
}

/**
 * A held call's approval on the wire (docs/design.md §12): `approval` is its state (`pending`,
 * `approved`, `denied`, `expired`; null for a call never held), the rest flat beside it as
 * `withheld_reason` is: times, and who decided (null while pending or expired).
 */
export function approvalToWire(approval: ApprovalRecord | undefined): Record<string, unknown> {
  return {
    approval: approval?.state ?? null,
    approval_requested_at: approval?.requestedAt ?? null,
    approval_timeout_seconds: approval?.timeoutSeconds ?? null,
    approval_decided_at: approval?.decidedAt ?? null,
    approval_operator: approval?.operator ?? null,
    approval_note: approval?.note ?? null,
    approval_expired_by: approval?.expiredBy ?? null,
  };
}

/**
 * The wire form of an operation: snake_case, every field of its kind present, with RAES's `domain`,
 * `diagnostics` and `changed_addresses` (docs/raes-mapping.md#operations).
 */
export function operationToWire(operation: Operation): Record<string, unknown> {
  return {
    id: operation.id,
    domain: operation.domain,
    parent_id: operation.parentId,
    kind: operation.kind,
    state: operation.state,
    settlement: operation.settlement ?? null,
    resolution: operation.resolution
      ? {
          resolution: operation.resolution.resolution,
          note: operation.resolution.note,
          resolved_at: operation.resolution.resolvedAt,
          // Who resolved it; null for a resolution recorded before operators were named.
          operator: operation.resolution.operator ?? null,
        }
      : null,
    ...timesToWire(operation),
    ...kindFieldsToWire(operation),
    diagnostics: operation.diagnostics.map((d) => ({
      code: d.code,
      domain: d.domain,
      address: d.address,
      message: d.message,
      severity: d.severity,
    })),
    changed_addresses: [...operation.changedAddresses],
    updated_at: operation.updatedAt,
  };
}

/** The owner of an in-flight operation, snake_case. */
export function ownerToWire(owner: OperationOwner): Record<string, unknown> {
  return {
    status: owner.status,
    owner_id: owner.ownerId ?? null,
    host: owner.host ?? null,
    pid: owner.pid ?? null,
    lease_expires_at: owner.leaseExpiresAt ?? null,
  };
}

/**
 * The wire form of a listed operation: the `raes operation` form plus participant and creation time; one in
 * flight adds its `owner`, and `on_recovery` (the state recovery gives it) when that owner is gone.
 */
export function operationEntryToWire(entry: OwnedOperationEntry): Record<string, unknown> {
  return {
    ...operationToWire(entry),
    participant_address: entry.participantAddress,
    created_at: entry.createdAt,
    ...(entry.owner === undefined ? {} : { owner: ownerToWire(entry.owner) }),
    ...(entry.onRecovery === undefined ? {} : { on_recovery: entry.onRecovery }),
  };
}

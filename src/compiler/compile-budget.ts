import type { AutonomousPolicy, Scenario } from "../sdl/index.js";
import { AutonomousProfile, resolveAddressableRef, sectionRefName } from "../sdl/index.js";
import { Addresses, address } from "./addresses.js";
import { CompileError, CompileErrorCode } from "./errors.js";
import type { CompiledResourceDemand, CompiledResourceFairness, CompiledResourceOwner } from "./model.js";
import { compareText } from "./records.js";

function declaredTenants(scenario: Scenario): Readonly<Record<string, unknown>> {
  const raw = (scenario as { readonly deployment_tenants?: unknown }).deployment_tenants;
  return typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

function ownerAddress(
  scenario: Scenario,
  kind: string,
  ref: string,
  participantAddresses: readonly string[],
): string {
  if (kind === "participant") {
    // As RAES: the one policy participant whose address ends with the authored ref (a bare agent name).
    const matching = participantAddresses.filter((candidate) => candidate.endsWith(`.${ref}`));
    if (matching.length === 1 && matching[0] !== undefined) return matching[0];
    throw new CompileError(
      CompileErrorCode.resource_owner_unresolved,
      `participant resource owner '${ref}' must resolve to one policy participant (name the agent bare)`,
    );
  }
  if (kind === "deployment_tenant") {
    const name = sectionRefName(ref, "deployment_tenants", declaredTenants(scenario)) ?? ref;
    return address("deployment", "tenant", name);
  }
  if (kind === "shared_service") {
    const resolved = resolveAddressableRef(scenario, ref);
    if (resolved?.kind !== "service") {
      throw new CompileError(
        CompileErrorCode.resource_owner_unresolved,
        `shared-service resource owner '${ref}' must resolve to one node service`,
      );
    }
    return Addresses.service(resolved.node, resolved.service);
  }
  return ref;
}

/** The v3 fields of a compiled policy, named as RAES's compiled runtime names them. */
export interface CompiledResourceBudget {
  readonly resourceOwners: readonly CompiledResourceOwner[];
  readonly resourceDemands: readonly CompiledResourceDemand[];
  readonly resourceFairness: CompiledResourceFairness;
}

/**
 * The resource budget of a v3 policy, compiled as RAES compiles it: owners sorted by owner id with their
 * addresses, one demand per dimension sorted by budget id (docs/guide/harness.md#autonomous-execution-v3).
 * Undefined for v1 and v2.
 *
 * @throws CompileError `compiler.resource-owner-unresolved` when an owner resolves to no address, as RAES's
 * compiler refuses it (a qualified `agents.<name>` participant owner validates but does not compile).
 */
export function compileResourceBudget(
  scenario: Scenario,
  policy: AutonomousPolicy,
  participantAddresses: readonly string[],
): CompiledResourceBudget | undefined {
  if (policy.profile !== AutonomousProfile.v3) return undefined;
  const budget = policy.resource_budget;
  const owners: CompiledResourceOwner[] = Object.entries(budget.owners)
    .sort(([a], [b]) => compareText(a, b))
    .map(([ownerId, owner]) => ({
      ownerId,
      kind: owner.kind,
      address: ownerAddress(scenario, owner.kind, owner.ref, participantAddresses),
    }));
  const byId = new Map(owners.map((owner) => [owner.ownerId, owner]));
  const demands: CompiledResourceDemand[] = Object.entries(budget.dimensions)
    .sort(([a], [b]) => compareText(a, b))
    .map(([budgetId, d]) => {
      const owner = byId.get(d.owner_ref);
      if (owner === undefined) {
        throw new CompileError(
          CompileErrorCode.resource_owner_unresolved,
          `resource budget '${budgetId}' names unknown owner '${d.owner_ref}'`,
        );
      }
      return {
        budgetId,
        ownerId: owner.ownerId,
        ownerKind: owner.kind,
        ownerAddress: owner.address,
        poolRef: d.pool_ref,
        resourceKind: d.resource_kind,
        unit: d.unit,
        accountingMode: d.accounting_mode,
        meterProfileRef: d.meter_profile_ref,
        limit: d.limit,
        reservation: d.reservation,
        reset: d.reset,
        windowTicks: d.window_ticks,
        parentBudgetRef: d.parent_budget_ref,
        evidenceRefs: [...d.evidence_refs],
        provenance: "authored",
      };
    });
  const f = budget.fairness;
  return {
    resourceOwners: owners,
    resourceDemands: demands,
    resourceFairness: {
      policy: f.policy,
      priorityClass: f.priority_class,
      weight: f.weight,
      protected: f.protected,
      borrowing: f.borrowing,
      reclaim: f.reclaim,
      maxQueueTicks: f.max_queue_ticks,
      starvationBoundTicks: f.starvation_bound_ticks,
    },
  };
}

import type { CompiledAutonomousPolicy, CompiledResourceDemand } from "../../compiler/index.js";
import { ManifestDiagnosticCode as Code } from "../codes.js";
import { RESOURCE_BUDGET_CONTRACTS } from "../contracts.js";
import { type DiagnosticSink, pointer } from "../diagnostics.js";
import type { RuntimeDraft } from "../draft.js";
import type { ParticipantRuntimeCapabilities, ResourcePoolCapacity } from "../types.js";

const at = (...keys: (string | number)[]) => pointer("participant_runtime", "resource_budgets", ...keys);
const REALIZATION_CONTRACTS = [
  "participant-resource-budget-state-v1",
  "participant-resource-budget-event-v1",
];

const V3 = "participant-autonomous-execution/v3";

/** As RAES's manifest model: a runtime that lists the v3 profile declares resource budgets. */
export function checkResourceBudgetDeclaration(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  if (!runtime.supportedAutonomousPolicyProfiles?.includes(V3) || runtime.resourceBudgets !== undefined)
    return;
  sink.error(
    Code.resource_budgets_required,
    `${runtime.path}${pointer("resource_budgets")}`,
    `'${V3}' is in supported_autonomous_policy_profiles, so resource_budgets is required`,
  );
}

/** The pool a demand needs: same pool ref, owner (kind and address), kind, unit, accounting mode and meter. */
export function matchingPool(
  demand: CompiledResourceDemand,
  pools: readonly ResourcePoolCapacity[],
): ResourcePoolCapacity | undefined {
  return pools.find(
    (pool) =>
      pool.poolRef === demand.poolRef &&
      pool.ownerKind === demand.ownerKind &&
      pool.ownerRef === demand.ownerAddress &&
      pool.resourceKind === demand.resourceKind &&
      pool.unit === demand.unit &&
      pool.accountingMode === demand.accountingMode &&
      pool.meterProfileRef === demand.meterProfileRef,
  );
}

/** The stable key of one physical pool (what RAES's pool-state identity hashes). */
export function poolKey(pool: ResourcePoolCapacity): string {
  return JSON.stringify([
    pool.poolRef,
    pool.ownerKind,
    pool.ownerRef,
    pool.resourceKind,
    pool.unit,
    pool.accountingMode,
    pool.meterProfileRef,
  ]);
}

/**
 * v3 admission as RAES's: the backend declares resource budgets with bounded or exact support and the
 * state and event realization contracts, and (when the manifest lists `supported_contract_versions`)
 * RAES's four resource-budget contracts there; every budget's owner kind, resource kind, accounting mode,
 * reset mode and the policy's fairness are declared supported; every budget has exactly one configured
 * pool of its own, with capacity for its limit (and, summed over all policies, for every limit on it),
 * fairness at least as strong as the policy's, and protected capacity when the policy is protected.
 * All or nothing: each gap is an error, so a manifest with any gap admits no v3 policy.
 */
export function checkResourceBudgetAdmission(
  sink: DiagnosticSink,
  runtime: ParticipantRuntimeCapabilities,
  policies: readonly CompiledAutonomousPolicy[],
  contracts?: readonly string[],
): void {
  // v1 and v2 policies carry RAES's legacy budgets in the compiled model; only a v3 budget is admitted here.
  const governed = policies.filter((policy) => policy.profile === V3 && policy.resourceDemands !== undefined);
  if (governed.length === 0) return;
  const budgets = runtime.resourceBudgets;
  if (budgets === undefined) {
    sink.error(
      Code.resource_budgets_required,
      pointer("participant_runtime", "resource_budgets"),
      `participant-autonomous-execution/v3 policies (${governed.map((p) => p.address).join(", ")}) need resource_budgets`,
    );
    return;
  }
  if (budgets.supportStrength !== "bounded" && budgets.supportStrength !== "exact") {
    sink.error(
      Code.resource_budget_support_weak,
      at("support_strength"),
      `resource budgets need bounded or exact support; the backend declares ${budgets.supportStrength}`,
    );
  }
  const undeclared = contracts && RESOURCE_BUDGET_CONTRACTS.filter((id) => !contracts.includes(id));
  if (undeclared && undeclared.length > 0) {
    sink.error(
      Code.resource_budget_contract_missing,
      pointer("supported_contract_versions"),
      `resource budgets need manifest contracts: ${undeclared.join(", ")}`,
    );
  }
  const missing = REALIZATION_CONTRACTS.filter((id) => !budgets.realizationContractIds.includes(id));
  if (missing.length > 0) {
    sink.error(
      Code.resource_budget_contract_missing,
      at("realization_contract_ids"),
      `resource budgets need realization contracts: ${missing.join(", ")}`,
    );
  }
  const aggregate = new Map<string, { pool: ResourcePoolCapacity; limit: number; protectedLimit: number }>();
  // Pool positions by identity, built once: a search of the pool list per demand is quadratic.
  const poolIndex = new Map(budgets.configuredPools.map((pool, index) => [pool, index]));
  const poolAtOf = (pool: ResourcePoolCapacity) => at("configured_pools", poolIndex.get(pool) ?? -1);
  for (const policy of governed) {
    const demands = policy.resourceDemands ?? [];
    const fairness = policy.resourceFairness;
    if (fairness === undefined) continue;
    if (!budgets.supportedFairnessPolicies.includes(fairness.policy)) {
      sink.error(
        Code.resource_budget_value_unsupported,
        at("supported_fairness_policies"),
        `${policy.address}: fairness policy '${fairness.policy}' is not declared supported`,
      );
    }
    const byId = new Map(demands.map((demand) => [demand.budgetId, demand]));
    const childLimits = new Map<string, number>();
    for (const demand of demands) {
      if (demand.parentBudgetRef === null) continue;
      childLimits.set(demand.parentBudgetRef, (childLimits.get(demand.parentBudgetRef) ?? 0) + demand.limit);
    }
    for (const [parentId, sum] of childLimits) {
      const parent = byId.get(parentId);
      if (parent === undefined || sum > parent.limit) {
        sink.error(
          Code.resource_budget_parent_overcommitted,
          pointer("participant_runtime", "resource_budgets"),
          `${policy.address}: budget parent '${parentId}' is missing or overcommitted by child limits`,
        );
      }
    }
    const used = new Set<string>();
    for (const demand of demands) {
      const label = `${policy.address}: budget '${demand.budgetId}' (${demand.resourceKind})`;
      const unsupported = (
        [
          ["owner kind", demand.ownerKind, budgets.supportedOwnerKinds, "supported_owner_kinds"],
          ["resource kind", demand.resourceKind, budgets.supportedResourceKinds, "supported_resource_kinds"],
          [
            "accounting mode",
            demand.accountingMode,
            budgets.supportedAccountingModes,
            "supported_accounting_modes",
          ],
          ["reset mode", demand.reset, budgets.supportedResetModes, "supported_reset_modes"],
        ] as const
      ).filter(([, value, supported]) => !supported.includes(value));
      for (const [what, value, , key] of unsupported) {
        sink.error(
          Code.resource_budget_value_unsupported,
          at(key),
          `${label}: ${what} '${value}' is not declared supported`,
        );
      }
      if (unsupported.length > 0) continue;
      const pool = matchingPool(demand, budgets.configuredPools);
      if (pool === undefined) {
        sink.error(
          Code.resource_budget_pool_missing,
          at("configured_pools"),
          `${label}: no configured pool '${demand.poolRef}' of owner ${demand.ownerKind} '${demand.ownerAddress}' ` +
            `measures ${demand.unit} by ${demand.accountingMode} with meter '${demand.meterProfileRef}'`,
        );
        continue;
      }
      const key = poolKey(pool);
      const poolAt = poolAtOf(pool);
      if (used.has(key)) {
        sink.error(
          Code.resource_budget_pool_aliased,
          poolAt,
          `${label}: pool '${pool.poolRef}' is already used by this policy`,
        );
        continue;
      }
      used.add(key);
      const total = aggregate.get(key) ?? { pool, limit: 0, protectedLimit: 0 };
      total.limit += demand.limit;
      if (fairness.protected) total.protectedLimit += demand.limit;
      aggregate.set(key, total);
      if (pool.capacity < demand.limit) {
        sink.error(
          Code.resource_budget_capacity_exceeded,
          poolAt,
          `${label}: needs capacity ${demand.limit}; pool '${pool.poolRef}' has ${pool.capacity}`,
        );
      }
      const fairnessGaps = [
        pool.fairnessPolicy !== fairness.policy &&
          `fairness '${fairness.policy}', pool declares '${pool.fairnessPolicy}'`,
        !pool.priorityClasses.includes(fairness.priorityClass) &&
          `priority class '${fairness.priorityClass}'`,
        (pool.borrowing !== fairness.borrowing || pool.reclaim !== fairness.reclaim) &&
          `borrowing/reclaim ${fairness.borrowing}/${fairness.reclaim}, pool has ${pool.borrowing}/${pool.reclaim}`,
        (pool.maxQueueTicks > fairness.maxQueueTicks ||
          pool.starvationBoundTicks > fairness.starvationBoundTicks) &&
          `queue/starvation bounds ${fairness.maxQueueTicks}/${fairness.starvationBoundTicks}, pool's are weaker (${pool.maxQueueTicks}/${pool.starvationBoundTicks})`,
      ].filter((gap): gap is string => typeof gap === "string");
      for (const gap of fairnessGaps) {
        sink.error(Code.resource_budget_fairness_mismatch, poolAt, `${label}: requires ${gap}`);
      }
      if (fairness.protected && pool.protectedCapacity < demand.reservation) {
        sink.error(
          Code.resource_budget_protected_capacity_missing,
          poolAt,
          `${label}: protected, but pool '${pool.poolRef}' protects ${pool.protectedCapacity} < reservation ${demand.reservation}`,
        );
      }
    }
  }
  for (const { pool, limit, protectedLimit } of aggregate.values()) {
    const poolAt = poolAtOf(pool);
    if (limit > pool.capacity) {
      sink.error(
        Code.resource_budget_capacity_exceeded,
        poolAt,
        `pool '${pool.poolRef}': policy limits sum to ${limit}; configured capacity is ${pool.capacity}`,
      );
    }
    if (protectedLimit > pool.protectedCapacity) {
      sink.error(
        Code.resource_budget_protected_capacity_missing,
        poolAt,
        `pool '${pool.poolRef}': protected policy limits sum to ${protectedLimit}; protected capacity is ${pool.protectedCapacity}`,
      );
    }
  }
}

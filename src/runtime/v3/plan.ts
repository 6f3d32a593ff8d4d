import type { CompiledAutonomousPolicy } from "../../compiler/index.js";
import { matchingPool, poolKey, type ResourcePoolCapacity } from "../../manifest/index.js";
import type { V3Budget, V3Plan } from "./ledger.js";

/**
 * A v3 policy's budgets with the pools the manifest configured for them, or the problems that stop it
 * running (registration already refuses a manifest without them; this guards a model run on another).
 */
export function planBudgets(
  policy: CompiledAutonomousPolicy,
  pools: readonly ResourcePoolCapacity[],
): { readonly plan?: V3Plan; readonly problems: string[] } {
  const problems: string[] = [];
  const budgets: V3Budget[] = [];
  for (const demand of policy.resourceDemands ?? []) {
    const pool = matchingPool(demand, pools);
    if (!pool) {
      problems.push(`${policy.address}: budget ${demand.budgetId} has no configured pool in the manifest`);
      continue;
    }
    budgets.push({
      demand,
      poolKey: poolKey(pool),
      poolName: `${pool.poolRef}|${pool.ownerRef}|${pool.resourceKind}`,
      capacity: pool.capacity,
      protectedCapacity: pool.protectedCapacity,
    });
  }
  if (budgets.length === 0 && problems.length === 0)
    problems.push(`${policy.address}: the v3 policy has no compiled resource budget`);
  if (problems.length > 0) return { problems };
  budgets.sort((a, b) =>
    a.demand.budgetId < b.demand.budgetId ? -1 : a.demand.budgetId > b.demand.budgetId ? 1 : 0,
  );
  return {
    problems,
    plan: { policyAddress: policy.address, budgets, protected: policy.resourceFairness?.protected ?? false },
  };
}

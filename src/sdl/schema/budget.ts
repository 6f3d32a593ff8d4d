import type { Infer } from "./shape.js";
import { bool, choice, integer, list, nullable, record, text } from "./shape.js";
import { required, struct, withDefault } from "./struct.js";

/**
 * The scoped resource budget of a `participant-autonomous-execution/v3` policy
 * (docs/guide/harness.md#autonomous-execution-v3). Every rule here is one of RAES's
 * model rules, so each failure is `sdl.model.invalid`, as RAES reports it.
 */

/** Who owns a budget. */
export const RESOURCE_OWNER_KINDS = ["participant", "deployment_tenant", "shared_service", "fleet"] as const;
/** A resource owner kind. */
export type ResourceOwnerKind = (typeof RESOURCE_OWNER_KINDS)[number];

/** The six resource kinds; a v3 budget covers every one (the complete vector). */
export const RESOURCE_KINDS = [
  "action_rate",
  "concurrent_actions",
  "storage_growth",
  "inference_tokens",
  "image_generations",
  "accelerator",
] as const;
/** A resource kind. */
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** How a budget counts use. */
export const ACCOUNTING_MODES = [
  "windowed_counter",
  "cumulative_counter",
  "reservable_gauge",
  "growth_counter",
  "lease",
] as const;
/** An accounting mode. */
export type AccountingMode = (typeof ACCOUNTING_MODES)[number];

/** When a budget's use returns to zero. */
export const RESET_MODES = ["episode", "time_segment", "run", "reconciled"] as const;
/** A reset mode. */
export type ResetMode = (typeof RESET_MODES)[number];

/** The one unit each resource kind is measured in. */
export const RESOURCE_UNIT: Readonly<Record<ResourceKind, string>> = {
  action_rate: "actions",
  concurrent_actions: "actions",
  storage_growth: "bytes",
  inference_tokens: "tokens",
  image_generations: "images",
  accelerator: "accelerator_milliseconds",
};

/** The accounting modes each resource kind allows. */
export const RESOURCE_ACCOUNTING: Readonly<Record<ResourceKind, readonly AccountingMode[]>> = {
  action_rate: ["windowed_counter"],
  concurrent_actions: ["reservable_gauge"],
  storage_growth: ["growth_counter"],
  inference_tokens: ["windowed_counter", "cumulative_counter"],
  image_generations: ["windowed_counter", "cumulative_counter"],
  accelerator: ["lease"],
};

const nonEmpty = () => text({ nonEmpty: true });
const QUANTITY_MAX = 10 ** 18;

const owner = struct({
  kind: required(choice(RESOURCE_OWNER_KINDS)),
  ref: required(nonEmpty()),
});

const fairness = struct({
  policy: required(nonEmpty()),
  priority_class: required(nonEmpty()),
  weight: required(integer({ min: 1, max: 1_000_000 })),
  protected: required(bool()),
  borrowing: required(nonEmpty()),
  reclaim: required(nonEmpty()),
  max_queue_ticks: required(integer({ min: 0, max: 1_000_000_000 })),
  starvation_bound_ticks: required(integer({ min: 1, max: 1_000_000_000 })),
});

const dimension = struct(
  {
    owner_ref: required(text({ identifier: true })),
    pool_ref: required(nonEmpty()),
    resource_kind: required(choice(RESOURCE_KINDS)),
    unit: required(nonEmpty()),
    accounting_mode: required(choice(ACCOUNTING_MODES)),
    meter_profile_ref: required(nonEmpty()),
    limit: required(integer({ min: 1, max: QUANTITY_MAX })),
    reservation: required(integer({ min: 1, max: QUANTITY_MAX })),
    reset: required(choice(RESET_MODES)),
    window_ticks: withDefault(nullable(integer({ min: 1, max: 1_000_000_000 })), null),
    parent_budget_ref: withDefault(nullable(text({ identifier: true })), null),
    evidence_refs: withDefault(list(nonEmpty(), { unique: true }), []),
  },
  [
    (d, fail) => {
      if (d.evidence_refs.length > 1024)
        fail("resource-budget evidence refs allow at most 1024 entries", "evidence_refs");
      const unit = RESOURCE_UNIT[d.resource_kind];
      if (d.unit !== unit) {
        fail(`${d.resource_kind} resource budget requires unit '${unit}'`, "unit");
        return;
      }
      if (!RESOURCE_ACCOUNTING[d.resource_kind].includes(d.accounting_mode)) {
        fail(
          `${d.resource_kind} resource budget does not support accounting mode '${d.accounting_mode}'`,
          "accounting_mode",
        );
        return;
      }
      if (d.reservation > d.limit) {
        fail("resource-budget reservation cannot exceed limit", "reservation");
        return;
      }
      if ((d.accounting_mode === "windowed_counter") !== (d.window_ticks !== null)) {
        fail("windowed resource budgets require window_ticks and other modes forbid it", "window_ticks");
        return;
      }
      if (d.resource_kind === "storage_growth" && d.reset !== "reconciled") {
        fail("storage_growth resource budget requires reconciled reset", "reset");
      }
    },
  ],
);

/** One budget dimension (`resource_budget.dimensions.<budget id>`). */
export type ResourceBudgetDimension = Infer<typeof dimension>;

type Dimensions = Readonly<Record<string, ResourceBudgetDimension>>;
type Fail = (message: string, ...path: (string | number)[]) => void;

function semantics(d: ResourceBudgetDimension): string {
  return JSON.stringify([d.resource_kind, d.unit, d.accounting_mode, d.meter_profile_ref]);
}

/** RAES's parent graph: acyclic, a parent measures the same thing, no child or sibling sum exceeds its parent. */
function checkParentGraph(dimensions: Dimensions, fail: Fail): void {
  const visiting = new Set<string>();
  const visited = new Set<string>();
  const visit = (id: string): boolean => {
    if (visiting.has(id)) {
      fail("resource-budget parent aggregation graph must be acyclic", "dimensions");
      return false;
    }
    if (visited.has(id)) return true;
    visiting.add(id);
    const child = dimensions[id];
    const parentId = child?.parent_budget_ref;
    if (child !== undefined && parentId !== null && parentId !== undefined) {
      const parent = dimensions[parentId];
      if (parent === undefined) return true;
      if (semantics(child) !== semantics(parent)) {
        fail("resource-budget parent must use the same resource, unit, mode, and meter", "dimensions", id);
        return false;
      }
      if (child.limit > parent.limit) {
        fail("resource-budget child limit cannot exceed its parent", "dimensions", id, "limit");
        return false;
      }
      if (!visit(parentId)) return false;
    }
    visiting.delete(id);
    visited.add(id);
    return true;
  };
  for (const id of Object.keys(dimensions)) if (!visit(id)) return;
  const childrenLimit = new Map<string, number>();
  for (const d of Object.values(dimensions)) {
    if (d.parent_budget_ref === null) continue;
    childrenLimit.set(d.parent_budget_ref, (childrenLimit.get(d.parent_budget_ref) ?? 0) + d.limit);
  }
  for (const [parentId, sum] of childrenLimit) {
    if (sum > (dimensions[parentId]?.limit ?? Number.POSITIVE_INFINITY)) {
      fail(
        "resource-budget sibling limits cannot exceed their parent limit",
        "dimensions",
        parentId,
        "limit",
      );
      return;
    }
  }
}

/** `autonomous_execution.resource_budget` of a v3 policy. */
export const resourceBudgetShape = struct(
  {
    policy_id: required(text({ identifier: true })),
    owners: required(record(owner, { minEntries: 1 })),
    fairness: required(fairness),
    dimensions: required(record(dimension, { minEntries: 1 })),
  },
  [
    (budget, fail) => {
      // RAES's size bounds (1024 owners, 4096 dimensions) come first: they bound the graph walk below.
      if (Object.keys(budget.owners).length > 1024) {
        fail("resource budget allows at most 1024 owners", "owners");
        return;
      }
      if (Object.keys(budget.dimensions).length > 4096) {
        fail("resource budget allows at most 4096 dimensions", "dimensions");
        return;
      }
      // RAES stops at the first policy rule that fails; so does this, to report one finding as RAES does.
      const present = new Set(Object.values(budget.dimensions).map((d) => d.resource_kind));
      const missing = RESOURCE_KINDS.filter((kind) => !present.has(kind));
      if (missing.length > 0) {
        fail(`resource budget requires complete resource vector: ${missing.join(", ")}`, "dimensions");
        return;
      }
      for (const [id, d] of Object.entries(budget.dimensions)) {
        if (!Object.hasOwn(budget.owners, d.owner_ref)) {
          fail(`resource budget '${id}' has unknown owner_ref`, "dimensions", id, "owner_ref");
          return;
        }
        if (d.parent_budget_ref !== null && !Object.hasOwn(budget.dimensions, d.parent_budget_ref)) {
          fail(
            `resource budget '${id}' has unknown parent_budget_ref`,
            "dimensions",
            id,
            "parent_budget_ref",
          );
          return;
        }
        if (budget.owners[d.owner_ref]?.kind !== "participant" && d.reset === "episode") {
          fail(
            "only participant-owned resource budgets may reset with an episode",
            "dimensions",
            id,
            "reset",
          );
          return;
        }
      }
      let failed = false;
      checkParentGraph(budget.dimensions, (message, ...path) => {
        failed = true;
        fail(message, ...path);
      });
      if (failed) return;
      const pools = Object.values(budget.dimensions).map((d) => {
        const o = budget.owners[d.owner_ref];
        return JSON.stringify([
          d.pool_ref,
          o?.kind,
          o?.ref,
          d.resource_kind,
          d.unit,
          d.accounting_mode,
          d.meter_profile_ref,
        ]);
      });
      if (new Set(pools).size !== pools.length) {
        fail("resource-budget dimensions cannot alias the same canonical resource pool", "dimensions");
      }
    },
  ],
);

/** A v3 policy's resource budget. */
export type ResourceBudget = Infer<typeof resourceBudgetShape>;

/**
 * RAES's v3 concurrency projection: exactly one participant-owned `concurrent_actions` budget,
 * whose limit is the policy's `max_in_flight`.
 */
export function checkConcurrencyProjection(
  policy: { readonly max_in_flight: number; readonly resource_budget: ResourceBudget },
  fail: Fail,
): void {
  const { owners, dimensions } = policy.resource_budget;
  const concurrency = Object.entries(dimensions).filter(
    ([, d]) => d.resource_kind === "concurrent_actions" && owners[d.owner_ref]?.kind === "participant",
  );
  const only = concurrency.length === 1 ? concurrency[0] : undefined;
  if (only === undefined) {
    fail(
      "participant-autonomous-execution/v3 requires exactly one participant-owned concurrent_actions budget",
      "resource_budget",
      "dimensions",
    );
    return;
  }
  if (only[1].limit !== policy.max_in_flight) {
    fail("participant concurrent_actions budget limit must equal max_in_flight", "max_in_flight");
  }
}

import { RESOURCE_ACCOUNTING, RESOURCE_KINDS, RESOURCE_UNIT } from "../compiler/index.js";
import { ManifestDiagnosticCode as Code } from "./codes.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { pointer } from "./diagnostics.js";
import {
  asObject,
  type JsonObject,
  readEnum,
  readNumber,
  readObjectList,
  readString,
  readStringList,
  reportUnknownKeys,
  reportValuesOutside,
} from "./fields.js";
import type { FeatureSupportLevel, ResourceBudgetCapabilities, ResourcePoolCapacity } from "./types.js";

/** The `participant-resource-pool-capacity/v1` schema tag of a configured pool. */
export const RESOURCE_POOL_CAPACITY_SCHEMA = "participant-resource-pool-capacity/v1";

const SUPPORT: readonly FeatureSupportLevel[] = ["unsupported", "disclosed_weak", "bounded", "exact"];
const OWNER_KINDS = ["participant", "deployment_tenant", "shared_service", "fleet"] as const;
const ACCOUNTING_MODES = [
  "windowed_counter",
  "cumulative_counter",
  "reservable_gauge",
  "growth_counter",
  "lease",
] as const;
const RESET_MODES = ["episode", "time_segment", "run", "reconciled"] as const;
const ISOLATION = ["none", "stateless", "tenant_partitioned"] as const;
const QUANTITY_MAX = 10 ** 18;

const CAPABILITY_KEYS = new Set([
  "support_strength",
  "supported_owner_kinds",
  "supported_resource_kinds",
  "supported_accounting_modes",
  "supported_reset_modes",
  "supported_fairness_policies",
  "supported_isolation_strengths",
  "configured_pools",
  "realization_contract_ids",
  "cross_range_pool_refs",
]);
const POOL_KEYS = new Set([
  "schema_version",
  "pool_ref",
  "owner_kind",
  "owner_ref",
  "resource_kind",
  "unit",
  "accounting_mode",
  "meter_profile_ref",
  "capacity",
  "tenant_isolation",
  "configuration_digest",
  "fairness_policy",
  "priority_classes",
  "borrowing",
  "reclaim",
  "max_queue_ticks",
  "starvation_bound_ticks",
  "protected_capacity",
  "evidence_contract_ids",
]);
const DIGEST = /^[a-z0-9-]+:[0-9a-f]{64}$/;

/** Reads an integer field within [min, max]; anything else is `manifest.invalid-value`. */
function readBounded(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  min: number,
  max: number,
): number | undefined {
  const value = readNumber(sink, object, key, path, "required");
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    sink.shape(Code.invalid_value, `${path}${pointer(key)}`, `'${key}' must be an integer in ${min}..${max}`);
    return undefined;
  }
  return value;
}

function readList(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  allowed?: readonly string[],
  minItems = 1,
): string[] | undefined {
  const values = readStringList(sink, object, key, path, minItems > 0 ? "required" : "optional");
  const at = `${path}${pointer(key)}`;
  if (values === undefined) return minItems > 0 ? undefined : [];
  if (values.length < minItems)
    sink.shape(Code.invalid_value, at, `'${key}' needs at least ${minItems} entry`);
  if (new Set(values).size !== values.length) sink.shape(Code.invalid_value, at, `'${key}' must be unique`);
  if (allowed !== undefined) reportValuesOutside(sink, values, at, allowed, key);
  return values;
}

function parsePool(sink: DiagnosticSink, pool: JsonObject, path: string): ResourcePoolCapacity | undefined {
  reportUnknownKeys(sink, pool, path, POOL_KEYS);
  const schema = readString(sink, pool, "schema_version", path, "optional");
  if (schema !== undefined && schema !== RESOURCE_POOL_CAPACITY_SCHEMA) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("schema_version")}`,
      `pool schema_version is '${schema}'; expected '${RESOURCE_POOL_CAPACITY_SCHEMA}'`,
    );
  }
  const text = (key: string) => readString(sink, pool, key, path, "required");
  const fields = {
    poolRef: text("pool_ref"),
    ownerKind: readEnum(sink, pool, "owner_kind", path, OWNER_KINDS),
    ownerRef: text("owner_ref"),
    resourceKind: readEnum(sink, pool, "resource_kind", path, RESOURCE_KINDS),
    unit: text("unit"),
    accountingMode: readEnum(sink, pool, "accounting_mode", path, ACCOUNTING_MODES),
    meterProfileRef: text("meter_profile_ref"),
    capacity: readBounded(sink, pool, "capacity", path, 1, QUANTITY_MAX),
    tenantIsolation: readEnum(sink, pool, "tenant_isolation", path, ISOLATION),
    configurationDigest: text("configuration_digest"),
    fairnessPolicy: text("fairness_policy"),
    priorityClasses: readList(sink, pool, "priority_classes", path),
    borrowing: text("borrowing"),
    reclaim: text("reclaim"),
    maxQueueTicks: readBounded(sink, pool, "max_queue_ticks", path, 0, 1_000_000_000),
    starvationBoundTicks: readBounded(sink, pool, "starvation_bound_ticks", path, 1, 1_000_000_000),
    protectedCapacity: readBounded(sink, pool, "protected_capacity", path, 0, QUANTITY_MAX),
    evidenceContractIds: readList(sink, pool, "evidence_contract_ids", path),
  };
  if (Object.values(fields).some((value) => value === undefined)) return undefined;
  const parsed = fields as { [K in keyof typeof fields]: NonNullable<(typeof fields)[K]> };
  if (!DIGEST.test(parsed.configurationDigest)) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("configuration_digest")}`,
      "configuration_digest must be '<algorithm>:<64 hex digits>'",
    );
  }
  const unit = RESOURCE_UNIT[parsed.resourceKind];
  if (parsed.unit !== unit) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("unit")}`,
      `${parsed.resourceKind} pools measure '${unit}'`,
    );
  }
  if (!RESOURCE_ACCOUNTING[parsed.resourceKind].includes(parsed.accountingMode)) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("accounting_mode")}`,
      `${parsed.resourceKind} pools do not support accounting mode '${parsed.accountingMode}'`,
    );
  }
  if (parsed.protectedCapacity > parsed.capacity) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("protected_capacity")}`,
      "protected capacity cannot exceed configured capacity",
    );
  }
  return parsed;
}

function checkPools(sink: DiagnosticSink, budgets: ResourceBudgetCapabilities, path: string): void {
  const keys = budgets.configuredPools.map((pool) =>
    JSON.stringify([pool.poolRef, pool.resourceKind, pool.meterProfileRef]),
  );
  if (new Set(keys).size !== keys.length) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("configured_pools")}`,
      "configured pool resource entries must be unique",
    );
  }
  budgets.crossRangePoolRefs.forEach((poolRef, index) => {
    const pools = budgets.configuredPools.filter((pool) => pool.poolRef === poolRef);
    const at = `${path}${pointer("cross_range_pool_refs", index)}`;
    if (pools.length === 0)
      sink.shape(Code.invalid_value, at, `cross-range pool '${poolRef}' is not configured`);
    else if (pools.some((pool) => pool.tenantIsolation !== "tenant_partitioned")) {
      sink.shape(Code.invalid_value, at, `cross-range pool '${poolRef}' needs tenant_partitioned isolation`);
    }
  });
  budgets.configuredPools.forEach((pool, index) => {
    const declared: [string, string, readonly string[]][] = [
      ["owner kind", pool.ownerKind, budgets.supportedOwnerKinds],
      ["resource kind", pool.resourceKind, budgets.supportedResourceKinds],
      ["accounting mode", pool.accountingMode, budgets.supportedAccountingModes],
      ["fairness policy", pool.fairnessPolicy, budgets.supportedFairnessPolicies],
      ["isolation strength", pool.tenantIsolation, budgets.supportedIsolationStrengths],
    ];
    for (const [label, value, supported] of declared) {
      if (supported.includes(value)) continue;
      sink.shape(
        Code.invalid_value,
        `${path}${pointer("configured_pools", index)}`,
        `configured pool ${label} '${value}' is not declared supported`,
      );
    }
  });
}

/**
 * Parses `participant_runtime.resource_budgets` with RAES's capability rules (a broken rule makes the
 * manifest unusable, as RAES's manifest model refuses it whole): supported values from
 * RAES's vocabularies, unique lists, at least one configured pool, each pool's unit and accounting mode
 * right for its resource kind, its values declared supported, and cross-range pools tenant-partitioned.
 */
export function parseResourceBudgets(
  sink: DiagnosticSink,
  raw: unknown,
  path: string,
): ResourceBudgetCapabilities | undefined {
  if (raw === undefined || raw === null) return undefined;
  const object = asObject(sink, raw, path, "resource_budgets");
  if (object === undefined) return undefined;
  reportUnknownKeys(sink, object, path, CAPABILITY_KEYS);
  const pools = readObjectList(sink, object, "configured_pools", path, (pool, poolPath) =>
    parsePool(sink, pool, poolPath),
  );
  if (pools.length === 0) {
    sink.shape(
      Code.invalid_value,
      `${path}${pointer("configured_pools")}`,
      "configured_pools needs at least one pool",
    );
  }
  const fields = {
    supportStrength: readEnum(sink, object, "support_strength", path, SUPPORT),
    supportedOwnerKinds: readList(sink, object, "supported_owner_kinds", path, OWNER_KINDS),
    supportedResourceKinds: readList(sink, object, "supported_resource_kinds", path, RESOURCE_KINDS),
    supportedAccountingModes: readList(sink, object, "supported_accounting_modes", path, ACCOUNTING_MODES),
    supportedResetModes: readList(sink, object, "supported_reset_modes", path, RESET_MODES),
    supportedFairnessPolicies: readList(sink, object, "supported_fairness_policies", path),
    supportedIsolationStrengths: readList(sink, object, "supported_isolation_strengths", path, ISOLATION),
    realizationContractIds: readList(sink, object, "realization_contract_ids", path),
    crossRangePoolRefs: readList(sink, object, "cross_range_pool_refs", path, undefined, 0),
  };
  if (Object.values(fields).some((value) => value === undefined)) return undefined;
  const configuredPools = pools.flatMap(({ item }) => (item === undefined ? [] : [item]));
  const budgets = {
    ...(fields as { [K in keyof typeof fields]: NonNullable<(typeof fields)[K]> }),
    configuredPools,
  };
  checkPools(sink, budgets, path);
  return budgets;
}

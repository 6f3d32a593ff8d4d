import { parseResourceBudgets } from "./budgets.js";
import {
  BACKEND_MANIFEST_SCHEMA,
  ManifestDiagnosticCode as Code,
  EXECUTION_BINDING_SCHEMA,
} from "./codes.js";
import { BACKEND_CONTRACT_IDS, contractFamilyProblems } from "./contracts.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { listCapped, pointer } from "./diagnostics.js";
import type {
  ClaimDraft,
  FeatureSupportDraft,
  LimitDraft,
  ManifestDraft,
  OfferDraft,
  RuntimeDraft,
} from "./draft.js";
import {
  asObject,
  type JsonObject,
  readBoolean,
  readEnum,
  readNumber,
  readObjectList,
  readString,
  readStringList,
  reportUnknownKeys,
} from "./fields.js";
import { parseTime } from "./time.js";
import type { FeatureSupportLevel } from "./types.js";

const SUPPORT_LEVELS: readonly FeatureSupportLevel[] = ["unsupported", "disclosed_weak", "bounded", "exact"];

const MANIFEST_KEYS = new Set([
  "schema_version",
  "name",
  "version",
  "supported_contract_versions",
  "participant_runtime",
  "time",
]);

/** RAES's execution-control actions; a runtime that supports execution control supports all six. */
export const EXECUTION_CONTROL_ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"] as const;

const CLAIM_KEYS = new Set([
  "semantic_versions",
  "max_tool_actions_per_invocation",
  "max_concurrent_tool_actions_per_invocation",
]);

/** Offer keys; `schema_version` is RAES's optional tag on the binding model. */
const OFFER_KEYS = new Set([
  "schema_version",
  "binding_id",
  "action_contract_address",
  "target_addresses",
  "participant_implementation_ref",
  "constraint_refs",
  "evidence_refs",
  "max_action_attempts",
  "max_in_flight",
  "timeout_seconds",
  "max_retries",
]);

/** RAES's feature-support keys; the ref lists are accepted but not interpreted. */
const FEATURE_SUPPORT_KEYS = new Set([
  "feature",
  "support_level",
  "constraint_refs",
  "limitation_refs",
  "disclosure_refs",
  "evidence_refs",
]);

const INTERPRETED_LISTS = [
  "supported_autonomous_selection_strategies",
  "supported_autonomous_policy_profiles",
  "supported_autonomous_action_contracts",
  "supported_autonomous_observation_boundaries",
  "supported_autonomous_target_addresses",
] as const;

/** RAES string-list capabilities raes-ts accepts but does not interpret. */
const TOLERATED_LISTS = [
  "supported_interaction_features",
  "supported_autonomous_activity_features",
  "supported_autonomous_random_stream_profiles",
] as const;

/** Every RAES `max_*` capability with its minimum; RAES requires two services for bounded concurrency. */
const LIMIT_MINIMUMS: Readonly<Record<string, number>> = {
  max_autonomous_participants: 1,
  max_autonomous_action_attempts: 1,
  max_autonomous_in_flight: 1,
  max_autonomous_occurrences: 1,
  max_autonomous_retries_per_occurrence: 1,
  max_autonomous_burst_size: 1,
  max_execution_services: 1,
  max_concurrent_actions: 2,
};

const RUNTIME_KEYS = new Set([
  "name",
  "supported_participant_roles",
  "supported_behavior_features",
  "feature_support",
  "supports_autonomous_execution",
  ...INTERPRETED_LISTS,
  ...TOLERATED_LISTS,
  ...Object.keys(LIMIT_MINIMUMS),
  "execution_bindings",
  "invocation_tool_actions",
  "supports_execution_control",
  "supported_execution_control_actions",
  "supports_bounded_concurrency",
  "resource_budgets",
  "constraints",
]);

/** Autonomous-only keys RAES forbids without autonomous support, besides the `max_*` limits. */
const AUTONOMOUS_ONLY_KEYS = [
  ...INTERPRETED_LISTS,
  "supported_autonomous_activity_features",
  "supported_autonomous_random_stream_profiles",
  "execution_bindings",
  "supports_execution_control",
  "supported_execution_control_actions",
  "supports_bounded_concurrency",
  "resource_budgets",
] as const;

function parseFeatureSupport(sink: DiagnosticSink, entry: JsonObject, path: string): FeatureSupportDraft {
  reportUnknownKeys(sink, entry, path, FEATURE_SUPPORT_KEYS);
  for (const key of ["constraint_refs", "limitation_refs", "disclosure_refs", "evidence_refs"]) {
    readStringList(sink, entry, key, path, "optional");
  }
  return {
    path,
    feature: readString(sink, entry, "feature", path, "required"),
    supportLevel: readEnum(sink, entry, "support_level", path, SUPPORT_LEVELS),
  };
}

function parseOffer(sink: DiagnosticSink, offer: JsonObject, path: string): OfferDraft {
  reportUnknownKeys(sink, offer, path, OFFER_KEYS);
  const schema = readString(sink, offer, "schema_version", path, "optional");
  if (schema !== undefined && schema !== EXECUTION_BINDING_SCHEMA) {
    sink.error(
      Code.invalid_value,
      `${path}${pointer("schema_version")}`,
      `offer schema_version is '${schema}'; expected '${EXECUTION_BINDING_SCHEMA}'`,
    );
  }
  return {
    path,
    bindingId: readString(sink, offer, "binding_id", path, "required"),
    actionContractAddress: readString(sink, offer, "action_contract_address", path, "required"),
    targetAddresses: readStringList(sink, offer, "target_addresses", path, "required"),
    participantImplementationRef: readString(sink, offer, "participant_implementation_ref", path, "required"),
    constraintRefs: readStringList(sink, offer, "constraint_refs", path, "required"),
    evidenceRefs: readStringList(sink, offer, "evidence_refs", path, "required"),
    maxActionAttempts: readNumber(sink, offer, "max_action_attempts", path, "required"),
    maxInFlight: readNumber(sink, offer, "max_in_flight", path, "required"),
    timeoutSeconds: readNumber(sink, offer, "timeout_seconds", path, "required"),
    maxRetries: readNumber(sink, offer, "max_retries", path, "required"),
  };
}

function parseClaim(sink: DiagnosticSink, runtime: JsonObject, runtimePath: string): ClaimDraft | undefined {
  if (!Object.hasOwn(runtime, "invocation_tool_actions")) return undefined;
  const path = `${runtimePath}${pointer("invocation_tool_actions")}`;
  const claim = asObject(sink, runtime.invocation_tool_actions, path, "invocation_tool_actions");
  if (claim === undefined) return undefined;
  reportUnknownKeys(sink, claim, path, CLAIM_KEYS);
  return {
    path,
    semanticVersions: readStringList(sink, claim, "semantic_versions", path, "required"),
    maxToolActionsPerInvocation: readNumber(sink, claim, "max_tool_actions_per_invocation", path, "required"),
    maxConcurrentToolActionsPerInvocation: readNumber(
      sink,
      claim,
      "max_concurrent_tool_actions_per_invocation",
      path,
      "required",
    ),
  };
}

function readToleratedShapes(sink: DiagnosticSink, runtime: JsonObject, path: string): void {
  for (const key of TOLERATED_LISTS) {
    if (key !== "supported_interaction_features") readStringList(sink, runtime, key, path, "optional");
  }
  readBoolean(sink, runtime, "supports_execution_control", path, "optional");
  readBoolean(sink, runtime, "supports_bounded_concurrency", path, "optional");
  if (runtime.constraints !== undefined) {
    const constraints = asObject(
      sink,
      runtime.constraints,
      `${path}${pointer("constraints")}`,
      "constraints",
    );
    for (const key of Object.keys(constraints ?? {})) {
      readString(sink, constraints ?? {}, key, `${path}${pointer("constraints")}`, "optional");
    }
  }
}

function isPresentValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== null && value !== false;
}

function parseRuntime(sink: DiagnosticSink, runtime: JsonObject, path: string): RuntimeDraft {
  reportUnknownKeys(sink, runtime, path, RUNTIME_KEYS);
  readToleratedShapes(sink, runtime, path);
  const limits: LimitDraft[] = Object.entries(LIMIT_MINIMUMS).map(([key, minimum]) => ({
    key,
    minimum,
    value: readNumber(sink, runtime, key, path, "optional", true),
  }));
  const limit = (key: string) => limits.find((entry) => entry.key === key)?.value;
  const list = (key: string) => readStringList(sink, runtime, key, path, "optional") ?? [];
  return {
    path,
    name: readString(sink, runtime, "name", path, "required"),
    supportedParticipantRoles: readStringList(sink, runtime, "supported_participant_roles", path, "required"),
    supportedBehaviorFeatures: readStringList(sink, runtime, "supported_behavior_features", path, "required"),
    supportedInteractionFeatures: list("supported_interaction_features"),
    featureSupport: readObjectList(sink, runtime, "feature_support", path, (entry, entryPath) =>
      parseFeatureSupport(sink, entry, entryPath),
    ).map(({ item }) => item),
    supportsAutonomousExecution: Object.hasOwn(runtime, "supports_autonomous_execution")
      ? readBoolean(sink, runtime, "supports_autonomous_execution", path, "optional")
      : false,
    supportedAutonomousSelectionStrategies: list("supported_autonomous_selection_strategies"),
    supportedAutonomousPolicyProfiles: list("supported_autonomous_policy_profiles"),
    supportedAutonomousActionContracts: list("supported_autonomous_action_contracts"),
    supportedAutonomousObservationBoundaries: list("supported_autonomous_observation_boundaries"),
    supportedAutonomousTargetAddresses: list("supported_autonomous_target_addresses"),
    maxAutonomousParticipants: limit("max_autonomous_participants"),
    maxAutonomousActionAttempts: limit("max_autonomous_action_attempts"),
    maxAutonomousInFlight: limit("max_autonomous_in_flight"),
    maxConcurrentActions: limit("max_concurrent_actions"),
    limits,
    autonomousKeysPresent: [
      ...AUTONOMOUS_ONLY_KEYS.filter((key) => isPresentValue(runtime[key])),
      ...Object.keys(LIMIT_MINIMUMS).filter(
        (key) => key !== "max_concurrent_actions" && isPresentValue(runtime[key]),
      ),
      ...(isPresentValue(runtime.max_concurrent_actions) ? ["max_concurrent_actions"] : []),
    ],
    executionBindings: readObjectList(sink, runtime, "execution_bindings", path, (offer, offerPath) =>
      parseOffer(sink, offer, offerPath),
    ).map(({ item }) => item),
    claim: parseClaim(sink, runtime, path),
    activity: {
      features: list("supported_autonomous_activity_features"),
      randomStreamProfiles: list("supported_autonomous_random_stream_profiles"),
      ...optionalLimit("maxOccurrences", limit("max_autonomous_occurrences")),
      ...optionalLimit("maxRetriesPerOccurrence", limit("max_autonomous_retries_per_occurrence")),
      ...optionalLimit("maxBurstSize", limit("max_autonomous_burst_size")),
    },
    resourceBudgets: parseResourceBudgets(
      sink,
      runtime.resource_budgets,
      `${path}${pointer("resource_budgets")}`,
    ),
    supportsExecutionControl: runtime.supports_execution_control === true,
    supportedExecutionControlActions: parseControlActions(sink, runtime, path),
  };
}

/**
 * `supported_execution_control_actions`, with RAES's rules: no unknown action, and all six when
 * `supports_execution_control` is true ("execution control is missing required actions").
 */
function parseControlActions(sink: DiagnosticSink, runtime: JsonObject, path: string): readonly string[] {
  const actions =
    readStringList(sink, runtime, "supported_execution_control_actions", path, "optional") ?? [];
  const at = `${path}${pointer("supported_execution_control_actions")}`;
  const known: readonly string[] = EXECUTION_CONTROL_ACTIONS;
  const unknown = actions.filter((action) => !known.includes(action));
  if (unknown.length > 0)
    sink.error(
      Code.invalid_value,
      at,
      `unsupported execution control actions: ${listCapped([...new Set(unknown)].sort())}`,
    );
  const missing = known.filter((action) => !actions.includes(action));
  if (runtime.supports_execution_control === true && missing.length > 0)
    sink.error(
      Code.invalid_value,
      at,
      `execution control is missing required actions: ${missing.join(", ")}`,
    );
  return actions;
}

/**
 * The manifest's `supported_contract_versions`, when it declares one, read as RAES's manifest model reads
 * it: a non-empty list of unique, non-empty, published backend contract ids (else `manifest.invalid-value`).
 */
function parseContracts(
  sink: DiagnosticSink,
  root: JsonObject,
): { readonly supportedContractVersions?: readonly string[] } {
  if (!Object.hasOwn(root, "supported_contract_versions")) return {};
  const path = pointer("supported_contract_versions");
  const value = root.supported_contract_versions;
  const invalid = (message: string) => {
    sink.shape(Code.invalid_value, path, message);
    return {};
  };
  if (!Array.isArray(value)) return invalid("supported_contract_versions must be a list of contract ids");
  if (value.length === 0) return invalid("supported_contract_versions must list at least one contract id");
  if (value.some((id) => typeof id !== "string" || id === ""))
    return invalid("supported_contract_versions must list non-empty strings");
  const ids = value as string[];
  if (new Set(ids).size !== ids.length)
    return invalid("supported_contract_versions must not list an id twice");
  const unknown = ids.filter((id) => !BACKEND_CONTRACT_IDS.has(id));
  if (unknown.length > 0)
    return invalid(
      `supported_contract_versions lists ids RAES does not publish for backends: ${listCapped(unknown)}`,
    );
  return { supportedContractVersions: ids };
}

/** Parses a manifest's wire document into a draft, reporting every shape problem. */
export function parseManifestDocument(sink: DiagnosticSink, document: unknown): ManifestDraft {
  const root = asObject(sink, document, "");
  if (root === undefined) {
    return { schemaVersion: undefined, name: undefined, version: undefined, runtime: undefined };
  }
  reportUnknownKeys(sink, root, "", MANIFEST_KEYS);
  const schemaVersion = readString(sink, root, "schema_version", "", "required");
  if (schemaVersion !== undefined && schemaVersion !== BACKEND_MANIFEST_SCHEMA) {
    sink.error(
      Code.schema_version_unsupported,
      pointer("schema_version"),
      `schema_version is '${schemaVersion}'; this runtime reads '${BACKEND_MANIFEST_SCHEMA}'`,
    );
  }
  const name = readString(sink, root, "name", "", "required");
  const version = readString(sink, root, "version", "", "required");
  const runtimeField = readPresentObject(sink, root, "participant_runtime");
  const runtime =
    runtimeField === undefined ? undefined : parseRuntime(sink, runtimeField, pointer("participant_runtime"));
  const contracts = parseContracts(sink, root);
  const time = parseTime(sink, root);
  if (contracts.supportedContractVersions !== undefined)
    for (const problem of contractFamilyProblems(
      contracts.supportedContractVersions,
      time.time !== undefined,
    ))
      sink.shape(Code.invalid_value, pointer("supported_contract_versions"), problem);
  return { schemaVersion, name, version, runtime, ...contracts, ...time };
}

function readPresentObject(sink: DiagnosticSink, root: JsonObject, key: string): JsonObject | undefined {
  if (!Object.hasOwn(root, key)) {
    sink.shape(Code.missing_field, pointer(key), `'${key}' is required`);
    return undefined;
  }
  return asObject(sink, root[key], pointer(key), key);
}

function optionalLimit<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

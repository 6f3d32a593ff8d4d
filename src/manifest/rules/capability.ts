import { isLimit } from "../claim.js";
import { ManifestDiagnosticCode as Code } from "../codes.js";
import { type DiagnosticSink, isCompiledAddress, pointer, reportDuplicates } from "../diagnostics.js";
import type { RuntimeDraft } from "../draft.js";
import { reportValuesOutside } from "../fields.js";
import { checkResourceBudgetDeclaration } from "./budget.js";

/** The behavior feature that must agree with `supports_autonomous_execution`. */
const AUTONOMOUS_FEATURE = "autonomous_execution";

/** RAES's autonomous selection strategies. */
const SELECTION_STRATEGIES = ["ordered_cycle", "weighted"] as const;

/** RAES's autonomous policy profiles. */
const POLICY_PROFILES = [
  "participant-autonomous-execution/v1",
  "participant-autonomous-execution/v2",
  "participant-autonomous-execution/v3",
] as const;

function listsOf(runtime: RuntimeDraft) {
  return [
    ["supported_participant_roles", runtime.supportedParticipantRoles],
    ["supported_behavior_features", runtime.supportedBehaviorFeatures],
    ["supported_interaction_features", runtime.supportedInteractionFeatures],
    ["supported_autonomous_selection_strategies", runtime.supportedAutonomousSelectionStrategies],
    ["supported_autonomous_policy_profiles", runtime.supportedAutonomousPolicyProfiles],
    ["supported_autonomous_action_contracts", runtime.supportedAutonomousActionContracts],
    ["supported_autonomous_observation_boundaries", runtime.supportedAutonomousObservationBoundaries],
    ["supported_autonomous_target_addresses", runtime.supportedAutonomousTargetAddresses],
  ] as const;
}

function checkLists(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  const at = (key: string) => `${runtime.path}${pointer(key)}`;
  for (const [key, values] of listsOf(runtime)) {
    reportDuplicates(sink, values ?? [], (index) => `${at(key)}${pointer(index)}`, key);
  }
  for (const key of ["supported_participant_roles", "supported_behavior_features"] as const) {
    const values =
      key === "supported_participant_roles"
        ? runtime.supportedParticipantRoles
        : runtime.supportedBehaviorFeatures;
    if (values?.length === 0) sink.error(Code.invalid_value, at(key), `${key} must not be empty`);
  }
  reportValuesOutside(
    sink,
    runtime.supportedAutonomousSelectionStrategies,
    at("supported_autonomous_selection_strategies"),
    SELECTION_STRATEGIES,
    "selection strategy",
  );
  reportValuesOutside(
    sink,
    runtime.supportedAutonomousPolicyProfiles,
    at("supported_autonomous_policy_profiles"),
    POLICY_PROFILES,
    "policy profile",
  );
  for (const [key, values] of [
    ["supported_autonomous_action_contracts", runtime.supportedAutonomousActionContracts],
    ["supported_autonomous_observation_boundaries", runtime.supportedAutonomousObservationBoundaries],
    ["supported_autonomous_target_addresses", runtime.supportedAutonomousTargetAddresses],
  ] as const) {
    values?.forEach((value, index) => {
      if (!isCompiledAddress(value)) {
        sink.error(
          Code.address_invalid,
          `${at(key)}${pointer(index)}`,
          `'${value}' is not a compiled address`,
        );
      }
    });
  }
}

function checkFeatureSupport(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  const entries = runtime.featureSupport.filter((entry) => entry.feature !== undefined);
  reportDuplicates(
    sink,
    entries.map((entry) => entry.feature ?? ""),
    (index) => `${entries[index]?.path ?? ""}${pointer("feature")}`,
    "feature_support feature",
  );
  const declared = new Set([
    ...(runtime.supportedBehaviorFeatures ?? []),
    ...runtime.supportedInteractionFeatures,
  ]);
  for (const entry of entries) {
    if (entry.supportLevel === "unsupported" && declared.has(entry.feature ?? "")) {
      sink.error(
        Code.feature_support_conflict,
        `${entry.path}${pointer("support_level")}`,
        `'${entry.feature}' is declared supported but its support_level is 'unsupported'`,
      );
    }
  }
}

function checkAutonomousConfiguration(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  const at = (key: string) => `${runtime.path}${pointer(key)}`;
  const supports = runtime.supportsAutonomousExecution;
  const features = runtime.supportedBehaviorFeatures;
  if (
    supports !== undefined &&
    features !== undefined &&
    features.includes(AUTONOMOUS_FEATURE) !== supports
  ) {
    sink.error(
      Code.autonomous_flag_mismatch,
      at("supports_autonomous_execution"),
      `supports_autonomous_execution is ${supports} but supported_behavior_features ` +
        `${supports ? "lacks" : "lists"} '${AUTONOMOUS_FEATURE}'`,
    );
  }
  if (supports === false) {
    for (const key of runtime.autonomousKeysPresent) {
      sink.error(
        Code.autonomous_config_without_support,
        at(key),
        `'${key}' is declared but supports_autonomous_execution is false`,
      );
    }
    return;
  }
  if (supports !== true) return;
  const required: readonly (readonly [string, boolean])[] = [
    [
      "supported_autonomous_selection_strategies",
      (runtime.supportedAutonomousSelectionStrategies ?? []).length > 0,
    ],
    ["supported_autonomous_policy_profiles", (runtime.supportedAutonomousPolicyProfiles ?? []).length > 0],
    ["supported_autonomous_action_contracts", (runtime.supportedAutonomousActionContracts ?? []).length > 0],
    [
      "supported_autonomous_observation_boundaries",
      (runtime.supportedAutonomousObservationBoundaries ?? []).length > 0,
    ],
    ["max_autonomous_participants", runtime.maxAutonomousParticipants !== undefined],
    ["max_autonomous_action_attempts", runtime.maxAutonomousActionAttempts !== undefined],
    ["max_autonomous_in_flight", runtime.maxAutonomousInFlight !== undefined],
    ["execution_bindings", runtime.executionBindings.length > 0],
  ];
  for (const [key, present] of required) {
    if (!present) {
      sink.error(
        Code.autonomous_config_incomplete,
        at(key),
        `autonomous execution is supported, so '${key}' is required`,
      );
    }
  }
}

function checkLimits(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  for (const limit of runtime.limits) {
    if (limit.value !== undefined && !isLimit(limit.value, limit.minimum)) {
      sink.error(
        Code.limit_invalid,
        `${runtime.path}${pointer(limit.key)}`,
        `${limit.key} is ${limit.value}; it must be an integer ≥ ${limit.minimum}`,
      );
    }
  }
}

/** Checks the participant-runtime capabilities for consistency, as RAES does, apart from claim and offers. */
export function checkCapabilities(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  checkLists(sink, runtime);
  checkFeatureSupport(sink, runtime);
  checkAutonomousConfiguration(sink, runtime);
  checkResourceBudgetDeclaration(sink, runtime);
  checkLimits(sink, runtime);
}

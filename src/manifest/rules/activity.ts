import type { CompiledAutonomousPolicy } from "../../compiler/index.js";
import { ManifestDiagnosticCode as Code } from "../codes.js";
import { type DiagnosticSink, largest, listCapped, pointer } from "../diagnostics.js";
import type { ParticipantRuntimeCapabilities } from "../types.js";

/** RAES's governed activity features; a v2 backend must declare every one. */
const ACTIVITY_FEATURES = [
  "work-windows",
  "timing-variation",
  "weighted-selection",
  "dependencies",
  "bounded-retries",
  "cooldowns",
  "limited-bursts",
  "occurrence-provenance",
] as const;
const RANDOM_STREAM_PROFILE = "blake3-xof-participant-v1";
const at = (key: string) => pointer("participant_runtime", key);

/**
 * v2 admission exactly as RAES's: the profile, `weighted`, every activity feature, the
 * participant random-stream profile and finite occurrence, retry and burst maxima covering the
 * policy. Each missing capability has its own code; no compatible fallback is inferred.
 */
export function checkActivityAdmission(
  sink: DiagnosticSink,
  runtime: ParticipantRuntimeCapabilities,
  policies: readonly CompiledAutonomousPolicy[],
): void {
  const activityPolicies = policies.filter((p) => p.activity !== undefined);
  const names = (list: readonly CompiledAutonomousPolicy[]) => listCapped(list.map((p) => p.address));
  checkV1Occurrences(sink, runtime, policies, names);
  if (activityPolicies.length === 0) return;
  for (const profile of new Set(activityPolicies.map((p) => p.profile))) {
    if (!runtime.supportedAutonomousPolicyProfiles.includes(profile))
      sink.error(
        Code.activity_profile_unsupported,
        at("supported_autonomous_policy_profiles"),
        `policy profile '${profile}' needed by ${names(activityPolicies.filter((p) => p.profile === profile))} is not declared`,
      );
  }
  if (!runtime.supportedAutonomousSelectionStrategies.includes("weighted"))
    sink.error(
      Code.activity_weighted_unsupported,
      at("supported_autonomous_selection_strategies"),
      `selection strategy 'weighted' needed by ${names(activityPolicies)} is not declared`,
    );
  const activity = runtime.activity;
  for (const feature of ACTIVITY_FEATURES) {
    if (!activity.features.includes(feature))
      sink.error(
        Code.activity_feature_unsupported,
        at("supported_autonomous_activity_features"),
        `activity feature '${feature}' is not declared (needed by ${names(activityPolicies)})`,
      );
  }
  if (!activity.randomStreamProfiles.includes(RANDOM_STREAM_PROFILE))
    sink.error(
      Code.activity_random_stream_unsupported,
      at("supported_autonomous_random_stream_profiles"),
      `random-stream profile '${RANDOM_STREAM_PROFILE}' is not declared (needed by ${names(activityPolicies)})`,
    );
  const limits = [
    [
      Code.activity_occurrences_exceeded,
      "max_autonomous_occurrences",
      largest(activityPolicies.map((p) => p.activity?.maxOccurrences ?? p.maxActionAttempts)),
      activity.maxOccurrences,
    ],
    [
      Code.activity_retries_exceeded,
      "max_autonomous_retries_per_occurrence",
      // As RAES: a policy without retries still needs a declared limit of at least 1.
      largest(
        activityPolicies.map(
          (p) =>
            largest(
              (p.activity?.candidates ?? []).map((c) => c.maxRetries),
              0,
            ) || 1,
        ),
      ),
      activity.maxRetriesPerOccurrence,
    ],
    [
      Code.activity_burst_exceeded,
      "max_autonomous_burst_size",
      largest(activityPolicies.map((p) => p.activity?.maxBurstSize ?? 1)),
      activity.maxBurstSize,
    ],
  ] as const;
  for (const [code, key, needed, declared] of limits) {
    if (declared === undefined || needed > declared)
      sink.error(
        code,
        at(key),
        `${names(activityPolicies)} need ${needed}; ${key} is ${declared ?? "not declared"}`,
      );
  }
}

/**
 * RAES checks its occurrence limit for every autonomous policy, a v1 policy's occurrences being its
 * attempts (test/fixtures/raes-outcomes/v1-manifest-limits.json). docs/design.md §3 does not require the limit
 * for v1 (RAES does), but a declared one must cover the policy.
 */
function checkV1Occurrences(
  sink: DiagnosticSink,
  runtime: ParticipantRuntimeCapabilities,
  policies: readonly CompiledAutonomousPolicy[],
  names: (list: readonly CompiledAutonomousPolicy[]) => string,
): void {
  const declared = runtime.activity.maxOccurrences;
  if (declared === undefined) return;
  const over = policies.filter((p) => p.activity === undefined && p.maxActionAttempts > declared);
  if (over.length === 0) return;
  sink.error(
    Code.activity_occurrences_exceeded,
    at("max_autonomous_occurrences"),
    `${names(over)} need ${largest(over.map((p) => p.maxActionAttempts))}; max_autonomous_occurrences is ${declared}`,
  );
}

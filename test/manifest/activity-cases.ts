import { ManifestDiagnosticCode as Code } from "../../src/manifest/index.js";

// biome-ignore lint/suspicious/noExplicitAny: manifest JSON is edited field by field
export type Json = Record<string, any>;

/** RAES's governed activity features. */
export const ACTIVITY_FEATURES = [
  "work-windows",
  "timing-variation",
  "weighted-selection",
  "dependencies",
  "bounded-retries",
  "cooldowns",
  "limited-bursts",
  "occurrence-provenance",
] as const;

/** One edit of the v2 example manifest per missing v2 capability, with the code it must answer. */
export const activityCases: readonly [string, (runtime: Json) => void, Code][] = [
  [
    "the v2 profile missing",
    (r) => {
      r.supported_autonomous_policy_profiles = ["participant-autonomous-execution/v1"];
    },
    Code.activity_profile_unsupported,
  ],
  [
    "weighted missing",
    (r) => {
      r.supported_autonomous_selection_strategies = ["ordered_cycle"];
    },
    Code.activity_weighted_unsupported,
  ],
  [
    "the participant random-stream profile missing (a near name is no fallback)",
    (r) => {
      r.supported_autonomous_random_stream_profiles = ["blake3-xof-v1"];
    },
    Code.activity_random_stream_unsupported,
  ],
  [
    "max_autonomous_occurrences below max_occurrences",
    (r) => {
      r.max_autonomous_occurrences = 59;
    },
    Code.activity_occurrences_exceeded,
  ],
  [
    "max_autonomous_occurrences undeclared",
    (r) => {
      delete r.max_autonomous_occurrences;
    },
    Code.activity_occurrences_exceeded,
  ],
  [
    "max_autonomous_retries_per_occurrence below a candidate's max_retries",
    (r) => {
      r.max_autonomous_retries_per_occurrence = 1;
    },
    Code.activity_retries_exceeded,
  ],
  [
    "max_autonomous_burst_size below max_burst_size",
    (r) => {
      r.max_autonomous_burst_size = 2;
    },
    Code.activity_burst_exceeded,
  ],
];

/** Every code the v2 admission cases exercise. */
export const ACTIVITY_CODES = [...activityCases.map(([, , code]) => code), Code.activity_feature_unsupported];

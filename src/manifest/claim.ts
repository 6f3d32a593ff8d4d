import { INVOCATION_TOOL_ACTIONS_V1 } from "../port/index.js";
import { ManifestDiagnosticCode as Code, ManifestSeverity } from "./codes.js";
import { pointer } from "./diagnostics.js";
import type { BackendManifest, FeatureSupportLevel, ManifestDiagnostic } from "./types.js";

/** The behavior feature whose support level the claim depends on. */
const TOOL_AFFORDANCES_FEATURE = "tool_affordances";

/** What the claim rules read; fields that failed to parse are undefined and skipped. */
export interface ClaimFacts {
  readonly path: string;
  readonly supportsAutonomousExecution: boolean | undefined;
  readonly featureSupport: readonly {
    readonly feature: string | undefined;
    readonly supportLevel: FeatureSupportLevel | undefined;
  }[];
  readonly semanticVersions: readonly string[] | undefined;
  readonly maxToolActionsPerInvocation: number | undefined;
  readonly maxConcurrentToolActionsPerInvocation: number | undefined;
}

/** True when value is an integer no smaller than minimum. */
export function isLimit(value: number | undefined, minimum: number): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= minimum;
}

function diagnostic(
  code: Code,
  path: string,
  message: string,
  severity: ManifestSeverity = ManifestSeverity.error,
): ManifestDiagnostic {
  return { code, severity, message, path };
}

function toolAffordancesProblem(facts: ClaimFacts): ManifestDiagnostic | undefined {
  const entry = facts.featureSupport.find((candidate) => candidate.feature === TOOL_AFFORDANCES_FEATURE);
  if (entry === undefined) {
    return diagnostic(
      Code.claim_tool_affordances_unsupported,
      facts.path,
      "the invocation_tool_actions claim needs a feature_support entry for tool_affordances above 'unsupported'",
    );
  }
  if (entry.supportLevel !== "unsupported") return undefined;
  return diagnostic(
    Code.claim_tool_affordances_unsupported,
    facts.path,
    "the invocation_tool_actions claim needs tool_affordances support, but its feature_support level is 'unsupported'",
  );
}

function versionProblems(facts: ClaimFacts): ManifestDiagnostic[] {
  const versions = facts.semanticVersions;
  if (versions === undefined) return [];
  const versionsPath = `${facts.path}${pointer("semantic_versions")}`;
  const problems: ManifestDiagnostic[] = [];
  if (!versions.includes(INVOCATION_TOOL_ACTIONS_V1)) {
    problems.push(
      diagnostic(
        Code.claim_version_missing,
        versionsPath,
        `semantic_versions must include '${INVOCATION_TOOL_ACTIONS_V1}'`,
      ),
    );
  }
  // A Set keeps the duplicate check linear: a 1 MB manifest may list a hundred thousand versions.
  const seen = new Set<string>();
  versions.forEach((version, index) => {
    const twice = seen.has(version);
    seen.add(version);
    if (twice) {
      problems.push(
        diagnostic(
          Code.duplicate_value,
          `${versionsPath}${pointer(index)}`,
          `semantic version '${version}' is listed twice`,
        ),
      );
    } else if (version !== INVOCATION_TOOL_ACTIONS_V1) {
      problems.push(
        diagnostic(
          Code.claim_version_unknown,
          `${versionsPath}${pointer(index)}`,
          `semantic version '${version}' is not implemented here and is ignored`,
          ManifestSeverity.warning,
        ),
      );
    }
  });
  return problems;
}

function limitProblems(facts: ClaimFacts): ManifestDiagnostic[] {
  const total = facts.maxToolActionsPerInvocation;
  const concurrent = facts.maxConcurrentToolActionsPerInvocation;
  const problems: ManifestDiagnostic[] = [];
  for (const [key, value] of [
    ["max_tool_actions_per_invocation", total],
    ["max_concurrent_tool_actions_per_invocation", concurrent],
  ] as const) {
    if (value !== undefined && !isLimit(value, 1)) {
      problems.push(
        diagnostic(
          Code.claim_limit_invalid,
          `${facts.path}${pointer(key)}`,
          `${key} is ${value}; it must be an integer ≥ 1`,
        ),
      );
    }
  }
  if (isLimit(total, 1) && isLimit(concurrent, 1) && concurrent > total) {
    problems.push(
      diagnostic(
        Code.claim_concurrency_exceeds_total,
        `${facts.path}${pointer("max_concurrent_tool_actions_per_invocation")}`,
        `the concurrent limit ${concurrent} exceeds the total limit ${total}`,
      ),
    );
  }
  return problems;
}

/** Every reason the participant-invocation-tool-actions claim is invalid (docs/design.md §3), plus warnings. */
export function claimDiagnostics(facts: ClaimFacts): ManifestDiagnostic[] {
  const problems: ManifestDiagnostic[] = [];
  if (facts.supportsAutonomousExecution === false) {
    problems.push(
      diagnostic(
        Code.claim_requires_autonomous_execution,
        facts.path,
        "the invocation_tool_actions claim requires supports_autonomous_execution: true",
      ),
    );
  }
  const toolAffordances = toolAffordancesProblem(facts);
  if (toolAffordances !== undefined) problems.push(toolAffordances);
  // Concatenated, not spread into push: a spread of a hundred thousand diagnostics overflows the stack.
  return problems.concat(versionProblems(facts), limitProblems(facts));
}

/** The claim facts of a parsed manifest, or undefined when it makes no claim. */
export function claimFactsOf(manifest: BackendManifest): ClaimFacts | undefined {
  const runtime = manifest.participantRuntime;
  const claim = runtime.invocationToolActions;
  if (claim === undefined) return undefined;
  return {
    path: pointer("participant_runtime", "invocation_tool_actions"),
    supportsAutonomousExecution: runtime.supportsAutonomousExecution,
    featureSupport: runtime.featureSupport,
    semanticVersions: claim.semanticVersions,
    maxToolActionsPerInvocation: claim.maxToolActionsPerInvocation,
    maxConcurrentToolActionsPerInvocation: claim.maxConcurrentToolActionsPerInvocation,
  };
}

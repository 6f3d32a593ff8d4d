import type {
  ActivityCapabilities,
  FeatureSupportLevel,
  ResourceBudgetCapabilities,
  TimeCapabilities,
} from "./types.js";

/** A parsed `feature_support` entry; undefined fields were malformed and already reported. */
export interface FeatureSupportDraft {
  readonly path: string;
  readonly feature: string | undefined;
  readonly supportLevel: FeatureSupportLevel | undefined;
}

/** A parsed execution-binding offer; undefined fields were malformed and already reported. */
export interface OfferDraft {
  readonly path: string;
  readonly bindingId: string | undefined;
  readonly actionContractAddress: string | undefined;
  readonly targetAddresses: readonly string[] | undefined;
  readonly participantImplementationRef: string | undefined;
  readonly constraintRefs: readonly string[] | undefined;
  readonly evidenceRefs: readonly string[] | undefined;
  readonly maxActionAttempts: number | undefined;
  readonly maxInFlight: number | undefined;
  readonly timeoutSeconds: number | undefined;
  readonly maxRetries: number | undefined;
}

/** A parsed `invocation_tool_actions` claim. */
export interface ClaimDraft {
  readonly path: string;
  readonly semanticVersions: readonly string[] | undefined;
  readonly maxToolActionsPerInvocation: number | undefined;
  readonly maxConcurrentToolActionsPerInvocation: number | undefined;
}

/** One RAES limit the rules check for range. */
export interface LimitDraft {
  readonly key: string;
  readonly value: number | undefined;
  readonly minimum: number;
}

/** A parsed `participant_runtime` block, including the RAES fields raes-ts only checks. */
export interface RuntimeDraft {
  readonly path: string;
  readonly name: string | undefined;
  readonly supportedParticipantRoles: readonly string[] | undefined;
  readonly supportedBehaviorFeatures: readonly string[] | undefined;
  readonly supportedInteractionFeatures: readonly string[];
  readonly featureSupport: readonly FeatureSupportDraft[];
  readonly supportsAutonomousExecution: boolean | undefined;
  readonly supportedAutonomousSelectionStrategies: readonly string[] | undefined;
  readonly supportedAutonomousPolicyProfiles: readonly string[] | undefined;
  readonly supportedAutonomousActionContracts: readonly string[] | undefined;
  readonly supportedAutonomousObservationBoundaries: readonly string[] | undefined;
  readonly supportedAutonomousTargetAddresses: readonly string[] | undefined;
  readonly maxAutonomousParticipants: number | undefined;
  readonly maxAutonomousActionAttempts: number | undefined;
  readonly maxAutonomousInFlight: number | undefined;
  /** RAES's runtime-wide concurrency limit, which bounds every offer's `max_in_flight`. */
  readonly maxConcurrentActions: number | undefined;
  /** Every `max_*` limit present, with its minimum. */
  readonly limits: readonly LimitDraft[];
  /** Autonomous-only keys present in the document, for the without-support rule. */
  readonly autonomousKeysPresent: readonly string[];
  readonly executionBindings: readonly OfferDraft[];
  readonly claim: ClaimDraft | undefined;
  readonly activity: ActivityCapabilities;
  readonly resourceBudgets: ResourceBudgetCapabilities | undefined;
  readonly supportsExecutionControl: boolean;
  readonly supportedExecutionControlActions: readonly string[];
}

/** A parsed manifest before its rules run. */
export interface ManifestDraft {
  readonly schemaVersion: string | undefined;
  readonly name: string | undefined;
  readonly version: string | undefined;
  readonly runtime: RuntimeDraft | undefined;
  readonly supportedContractVersions?: readonly string[];
  readonly time?: TimeCapabilities;
}

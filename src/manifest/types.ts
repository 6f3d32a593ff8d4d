import type { ManifestDiagnosticCode, ManifestSeverity } from "./codes.js";

/** RAES's guarantee-strength scale for one participant feature. */
export type FeatureSupportLevel = "unsupported" | "disclosed_weak" | "bounded" | "exact";

/** One `feature_support` entry. */
export interface FeatureSupport {
  readonly feature: string;
  readonly supportLevel: FeatureSupportLevel;
}

/** One participant-execution-binding/v1 offer: an action the runtime can execute on these targets. */
export interface ExecutionBindingOffer {
  readonly bindingId: string;
  readonly actionContractAddress: string;
  readonly targetAddresses: readonly string[];
  readonly participantImplementationRef: string;
  readonly constraintRefs: readonly string[];
  readonly evidenceRefs: readonly string[];
  readonly maxActionAttempts: number;
  readonly maxInFlight: number;
  readonly timeoutSeconds: number;
  readonly maxRetries: number;
}

/** The participant-invocation-tool-actions claim with its per-invocation limits. */
export interface InvocationToolActionsClaim {
  readonly semanticVersions: readonly string[];
  readonly maxToolActionsPerInvocation: number;
  readonly maxConcurrentToolActionsPerInvocation: number;
}

/** The participant-runtime capabilities raes-ts interprets; absent lists are empty, absent limits are undefined. */
export interface ParticipantRuntimeCapabilities {
  readonly name: string;
  readonly supportedParticipantRoles: readonly string[];
  readonly supportedBehaviorFeatures: readonly string[];
  readonly featureSupport: readonly FeatureSupport[];
  readonly supportsAutonomousExecution: boolean;
  readonly supportedAutonomousSelectionStrategies: readonly string[];
  readonly supportedAutonomousPolicyProfiles: readonly string[];
  readonly supportedAutonomousActionContracts: readonly string[];
  readonly supportedAutonomousObservationBoundaries: readonly string[];
  readonly supportedAutonomousTargetAddresses: readonly string[];
  readonly maxAutonomousParticipants?: number;
  readonly maxAutonomousActionAttempts?: number;
  readonly maxAutonomousInFlight?: number;
  readonly executionBindings: readonly ExecutionBindingOffer[];
  readonly invocationToolActions?: InvocationToolActionsClaim;
  /** RAES's v2 activity capabilities, as declared (absent lists empty, absent limits undefined). */
  readonly activity: ActivityCapabilities;
  /** The v3 resource-budget capabilities and configured pools; absent when not declared. */
  readonly resourceBudgets?: ResourceBudgetCapabilities;
  /** RAES's `supports_execution_control`: the participants' execution services take lifecycle controls. */
  readonly supportsExecutionControl: boolean;
  /** RAES's `supported_execution_control_actions`, as declared (empty when absent). */
  readonly supportedExecutionControlActions: readonly string[];
}

/**
 * The manifest's `time` capabilities raes-ts interprets. A manifest without `time` leaves the shared
 * clock to raes-ts's own time runtime, which resets a clock's participants with it (docs/raes-mapping.md).
 */
export interface TimeCapabilities {
  /** RAES's `supports_coordinated_participant_reset`: one atomic clock and participant episode reset. */
  readonly supportsCoordinatedParticipantReset: boolean;
}

/** One configured physical resource pool (`participant-resource-pool-capacity/v1`). */
export interface ResourcePoolCapacity {
  readonly poolRef: string;
  readonly ownerKind: string;
  /** The owner's compiled address (a budget's owner address must equal it). */
  readonly ownerRef: string;
  readonly resourceKind: string;
  readonly unit: string;
  readonly accountingMode: string;
  readonly meterProfileRef: string;
  readonly capacity: number;
  readonly tenantIsolation: string;
  readonly configurationDigest: string;
  readonly fairnessPolicy: string;
  readonly priorityClasses: readonly string[];
  readonly borrowing: string;
  readonly reclaim: string;
  readonly maxQueueTicks: number;
  readonly starvationBoundTicks: number;
  readonly protectedCapacity: number;
  readonly evidenceContractIds: readonly string[];
}

/** What a backend declares for v3 resource budgets: supported values and its configured pools. */
export interface ResourceBudgetCapabilities {
  readonly supportStrength: FeatureSupportLevel;
  readonly supportedOwnerKinds: readonly string[];
  readonly supportedResourceKinds: readonly string[];
  readonly supportedAccountingModes: readonly string[];
  readonly supportedResetModes: readonly string[];
  readonly supportedFairnessPolicies: readonly string[];
  readonly supportedIsolationStrengths: readonly string[];
  readonly configuredPools: readonly ResourcePoolCapacity[];
  readonly realizationContractIds: readonly string[];
  readonly crossRangePoolRefs: readonly string[];
}

/** What a backend declares it can do for v2 activity policies; nothing is inferred from v1 claims. */
export interface ActivityCapabilities {
  readonly features: readonly string[];
  readonly randomStreamProfiles: readonly string[];
  readonly maxOccurrences?: number;
  readonly maxRetriesPerOccurrence?: number;
  readonly maxBurstSize?: number;
}

/** A parsed backend manifest, camelCase; the wire form is snake_case. */
export interface BackendManifest {
  readonly schemaVersion: string;
  readonly name: string;
  readonly version: string;
  readonly participantRuntime: ParticipantRuntimeCapabilities;
  /**
   * RAES's `supported_contract_versions`, when the manifest declares it (raes-ts manifests may leave it
   * out; then no contract is checked). A v3 budget needs its four resource-budget contracts listed.
   */
  readonly supportedContractVersions?: readonly string[];
  /** The `time` capabilities, when the manifest declares them. */
  readonly time?: TimeCapabilities;
}

/** One problem found in a manifest; `path` is a JSON pointer into the wire document. */
export interface ManifestDiagnostic {
  readonly code: ManifestDiagnosticCode;
  readonly severity: ManifestSeverity;
  readonly message: string;
  readonly path: string;
}

/** The result of checking a manifest: `manifest` is present whenever its shape is well-formed. */
export interface ManifestCheck {
  readonly ok: boolean;
  readonly manifest?: BackendManifest;
  readonly diagnostics: readonly ManifestDiagnostic[];
}

/**
 * RAES's published backend contract ids: what a backend manifest's `supported_contract_versions` may
 * claim (RAES's `BACKEND_SUPPORTED_CONTRACT_IDS`, docs/raes-mapping.md#v3-resource-budgets).
 */
export const BACKEND_CONTRACT_IDS: ReadonlySet<string> = new Set([
  "backend-manifest-v2",
  "artifact-requirement-v1",
  "experiment-binding-descriptors-v1",
  "realization-envelope-v1",
  "provisioning-plan-v1",
  "orchestration-plan-v1",
  "evaluation-plan-v1",
  "operation-receipt-v1",
  "operation-status-v1",
  "runtime-snapshot-v1",
  "workflow-result-envelope-v1",
  "workflow-history-event-stream-v1",
  "evaluation-result-envelope-v1",
  "proposition-truth-result-v1",
  "evaluation-history-event-stream-v1",
  "participant-episode-state-envelope-v1",
  "participant-episode-history-event-stream-v1",
  "participant-behavior-history-event-stream-v1",
  "participant-execution-binding-v1",
  "participant-execution-control-v1",
  "participant-execution-service-state-v1",
  "participant-resource-budget-policy-v1",
  "participant-resource-pool-capacity-v1",
  "participant-resource-budget-state-v1",
  "participant-resource-budget-event-v1",
  "participant-control-occurrence-v1",
  "participant-crossing-occurrence-v1",
  "participant-lifecycle-event-v1",
  "participant-observation-envelope-v1",
  "participant-shared-state-record-v1",
  "participant-joint-action-record-v1",
  "participant-time-management-context-v1",
  "participant-outcome-report-v1",
  "experiment-capture-spec-v1",
  "experiment-evidence-record-v1",
  "experiment-derived-measure-v1",
  "experiment-run-v1",
  "trial-cleanup-plan-v1",
  "trial-cleanup-receipt-v1",
  "time-model-v1",
  "time-runtime-state-v1",
  "realized-time-model-v1",
]);

/** The contracts RAES's admission requires in `supported_contract_versions` for a v3 resource budget. */
export const RESOURCE_BUDGET_CONTRACTS = [
  "participant-resource-budget-event-v1",
  "participant-resource-budget-policy-v1",
  "participant-resource-budget-state-v1",
  "participant-resource-pool-capacity-v1",
] as const;

/** RAES's cleanup contract family: a backend claims it only with cleanup capabilities. */
export const CLEANUP_CONTRACTS = ["trial-cleanup-plan-v1", "trial-cleanup-receipt-v1"] as const;

/** RAES's time contract family (`TIME_CAPABILITY_REQUIRED_CONTRACTS`): claimed whole with `time` capabilities. */
export const TIME_CONTRACTS = [
  "experiment-run-v1",
  "realized-time-model-v1",
  "runtime-snapshot-v1",
  "time-model-v1",
  "time-runtime-state-v1",
] as const;

/** RAES's realization-envelope contract: a backend claims it only with a `realization_envelope`. */
export const REALIZATION_ENVELOPE_CONTRACT = "realization-envelope-v1";

/**
 * RAES's `BackendManifest` rules that tie `supported_contract_versions` to the capabilities it names
 * (docs/raes-mapping.md#v3-resource-budgets): a raes-ts manifest declares no cleanup capabilities and no
 * realization envelope, so it may claim neither family; with a `time` section it claims the whole time
 * family. Each broken rule is RAES's refusal of the manifest (`manifest.invalid-value`), with the reason.
 */
export function contractFamilyProblems(contracts: readonly string[], declaresTime: boolean): string[] {
  const problems: string[] = [];
  const cleanup = CLEANUP_CONTRACTS.filter((id) => contracts.includes(id));
  if (cleanup.length > 0)
    problems.push(
      `supported_contract_versions claims cleanup contracts (${cleanup.join(", ")}), which need cleanup capabilities a raes-ts manifest does not declare`,
    );
  if (contracts.includes(REALIZATION_ENVELOPE_CONTRACT))
    problems.push(
      `supported_contract_versions claims ${REALIZATION_ENVELOPE_CONTRACT}, which needs a realization_envelope a raes-ts manifest does not carry`,
    );
  const time = TIME_CONTRACTS.filter((id) => !contracts.includes(id));
  if (declaresTime && time.length > 0)
    problems.push(
      `time capabilities need the complete time contract family in supported_contract_versions; missing ${time.join(", ")}`,
    );
  return problems;
}

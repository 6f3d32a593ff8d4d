import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { ScenarioIndex } from "../refs.js";

/** RAES's governed-extension pattern (controlled-vocabularies-v1): `x-<namespace>:<term>`. */
const EXTENSION = /^x-[a-z0-9]+(?:-[a-z0-9]+)*:[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Terms of the RAES controlled vocabularies that govern behavior-specification fields (contracts/concept-authority/controlled-vocabularies-v1.json). */
const VOCABULARY = {
  modes: [
    "autonomous",
    "human-control-proxy",
    "human-supervised",
    "mixed-control",
    "policy-directed",
    "replayed",
    "scripted",
  ],
  features: [
    "action_contracts",
    "autonomous_execution",
    "attribution_support",
    "behavior_history",
    "effects",
    "failure_classes",
    "observation_boundaries",
    "outcome_interpretation",
    "participant_declassification",
    "participant_directed_inject_delivery",
    "participant_egress_projection",
    "participant_ingress_admission",
    "participant_intervention",
    "participant_predicate_opacity",
    "participant_transformation",
    "preconditions",
    "state_transitions",
    "temporal_contracts",
    // participant-runtime-interaction-features
    "contention",
    "coordination",
    "interference",
    "shared_state_change",
  ],
  offensive: [
    "reconnaissance",
    "resource-development",
    "initial-access",
    "execution",
    "persistence",
    "privilege-escalation",
    "stealth",
    "defense-impairment",
    "credential-access",
    "discovery",
    "lateral-movement",
    "collection",
    "command-and-control",
    "exfiltration",
    "impact",
  ],
  aiOffensive: [
    "reconnaissance",
    "resource-development",
    "initial-access",
    "ai-model-access",
    "execution",
    "persistence",
    "privilege-escalation",
    "defense-evasion",
    "credential-access",
    "discovery",
    "lateral-movement",
    "collection",
    "ai-attack-staging",
    "command-and-control",
    "exfiltration",
    "impact",
  ],
  defensive: [
    "continuous-monitoring",
    "adverse-event-analysis",
    "incident-management",
    "incident-analysis",
    "incident-response-reporting-and-communication",
    "incident-mitigation",
    "incident-recovery-plan-execution",
    "incident-recovery-communication",
  ],
} as const;

/** The contracts RAES publishes (processor, backend and participant-implementation supported contract ids); `evidence_contract_refs` must name one. */
const PUBLISHED_CONTRACTS: ReadonlySet<string> = new Set([
  "artifact-requirement-v1",
  "backend-manifest-v2",
  "evaluation-history-event-stream-v1",
  "evaluation-plan-v1",
  "evaluation-result-envelope-v1",
  "experiment-binding-descriptors-v1",
  "experiment-capture-spec-v1",
  "experiment-derived-measure-v1",
  "experiment-evidence-record-v1",
  "experiment-run-v1",
  "operation-receipt-v1",
  "operation-status-v1",
  "orchestration-plan-v1",
  "participant-behavior-history-event-stream-v1",
  "participant-configuration-result-v1",
  "participant-control-occurrence-v1",
  "participant-crossing-occurrence-v1",
  "participant-decision-surface-v2",
  "participant-episode-history-event-stream-v1",
  "participant-episode-state-envelope-v1",
  "participant-execution-binding-v1",
  "participant-execution-control-v1",
  "participant-execution-service-state-v1",
  "participant-implementation-manifest-v1",
  "participant-implementation-provenance-v1",
  "participant-joint-action-record-v1",
  "participant-lifecycle-event-v1",
  "participant-observation-envelope-v1",
  "participant-outcome-report-v1",
  "participant-resource-budget-event-v1",
  "participant-resource-budget-policy-v1",
  "participant-resource-budget-state-v1",
  "participant-resource-pool-capacity-v1",
  "participant-shared-state-record-v1",
  "participant-time-management-context-v1",
  "processor-manifest-v2",
  "proposition-truth-result-v1",
  "provisioning-plan-v1",
  "realization-envelope-v1",
  "realized-time-model-v1",
  "runtime-snapshot-v1",
  "time-model-v1",
  "time-runtime-state-v1",
  "trial-cleanup-plan-v1",
  "trial-cleanup-receipt-v1",
  "workflow-cancellation-request-v1",
  "workflow-history-event-stream-v1",
  "workflow-result-envelope-v1",
]);

function governed(terms: readonly string[], value: string): boolean {
  return terms.includes(value) || EXTENSION.test(value);
}

type Report = (finding: Finding) => void;

/** Checks behavior modes, features, behavior activity refs and evidence contracts against RAES's governed vocabularies. */
export function checkVocabularies(index: ScenarioIndex, report: Report): void {
  for (const [name, spec] of Object.entries(index.scenario.behavior_specifications)) {
    const at = joinPointer("/behavior_specifications", name);
    if (spec.behavior_mode !== undefined && !governed(VOCABULARY.modes, spec.behavior_mode)) {
      report({
        code: DiagnosticCode.specModeUngoverned,
        message: `behavior_mode '${spec.behavior_mode}' is not in participant-decision-surface-modes`,
        path: joinPointer(at, "behavior_mode"),
      });
    }
    const lists = [
      ["backend_feature_support_refs", VOCABULARY.features, DiagnosticCode.specFeatureUngoverned],
      ["offensive_behavior_refs", VOCABULARY.offensive, DiagnosticCode.specOffensiveBehaviorUngoverned],
      [
        "ai_offensive_behavior_refs",
        VOCABULARY.aiOffensive,
        DiagnosticCode.specAiOffensiveBehaviorUngoverned,
      ],
      ["defensive_behavior_refs", VOCABULARY.defensive, DiagnosticCode.specDefensiveBehaviorUngoverned],
    ] as const;
    for (const [field, terms, code] of lists) {
      spec[field].forEach((ref, i) => {
        if (governed(terms, ref)) return;
        report({
          code,
          message: `${field} entry '${ref}' is not a governed term`,
          path: joinPointer(at, field, i),
        });
      });
    }
    spec.evidence_contract_refs.forEach((ref, i) => {
      if (PUBLISHED_CONTRACTS.has(ref)) return;
      report({
        code: DiagnosticCode.specEvidenceContractUnbound,
        message: `evidence_contract_ref '${ref}' is not a published RAES contract`,
        path: joinPointer(at, "evidence_contract_refs", i),
      });
    });
  }
}

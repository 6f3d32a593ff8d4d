import type { ObservationBoundary, Scenario } from "../../sdl/index.js";
import { Addresses } from "../addresses.js";
import { byAddress } from "../records.js";
import type { CompiledObservationBoundary } from "./model.js";
import { initialViewRelation, viewRelationRefs, viewRelationTimeline } from "./view-relation.js";

export type {
  CompiledObservationBoundary,
  CompiledViewRelationSnapshot,
  CompiledViewRule,
  CompiledViewTransition,
} from "./model.js";

/** Compiles every observation boundary: its authored refs and rules, and its view relation over time. */
export function compileBoundaries(scenario: Scenario): Record<string, CompiledObservationBoundary> {
  return byAddress(
    Object.entries(scenario.observation_boundaries).map(([name, boundary]) =>
      compileBoundary(name, boundary),
    ),
  );
}

function compileBoundary(name: string, boundary: ObservationBoundary): CompiledObservationBoundary {
  const dispositions = new Map(boundary.view_rules.map((rule) => [rule.information_ref, rule.disposition]));
  const initial = initialViewRelation(boundary.view_rules);
  const transitions = orderedTransitions(boundary);
  return {
    address: Addresses.observationBoundary(name),
    name,
    declaredRefs: [
      ...new Set([...boundary.observable_refs, ...boundary.hidden_refs, ...boundary.evidence_refs]),
    ],
    evidenceRefs: [...boundary.evidence_refs],
    viewRules: boundary.view_rules.map((rule) => ({
      informationRef: rule.information_ref,
      disposition: rule.disposition,
    })),
    outcomeEvidenceRefs: boundary.evidence_refs.filter((ref) => dispositions.get(ref) !== "hidden"),
    boundaryName: name,
    projectionBasis: boundary.projection_basis,
    observableRefs: [...boundary.observable_refs],
    hiddenRefs: [...boundary.hidden_refs],
    disclosedRefs: viewRelationRefs(initial, "disclosed"),
    evidenceOnlyRefs: viewRelationRefs(initial, "evidence_only"),
    discoveredRefs: viewRelationRefs(initial, "discovered"),
    inferredRefs: viewRelationRefs(initial, "inferred"),
    concealedRefs: viewRelationRefs(initial, "concealed"),
    deceptiveRefs: viewRelationRefs(initial, "deceptive"),
    viewTransitions: transitions,
    viewRelationTimeline: viewRelationTimeline(initial, transitions),
    realizedViewDisclosure: boundary.realized_view_disclosure ?? "",
    orderingDependencies: [],
    refreshDependencies: [],
  };
}

/** The authored transitions by `effective_order` (stable), every field written, `null` where not authored (as RAES). */
function orderedTransitions(boundary: ObservationBoundary): CompiledObservationBoundary["viewTransitions"] {
  return boundary.view_transitions
    .map((transition) => ({
      transitionId: transition.transition_id,
      transitionKind: transition.transition_kind,
      informationRef: transition.information_ref,
      trigger: transition.trigger,
      effectiveFrom: transition.effective_from,
      effectiveOrder: transition.effective_order,
      historyEventType: transition.history_event_type,
      actionInstanceId: transition.action_instance_id ?? null,
      fromDisposition: transition.from_disposition,
      toDisposition: transition.to_disposition,
      disclosureRule: transition.disclosure_rule ?? null,
      evidenceRefs: [...transition.evidence_refs],
      certainty: transition.certainty,
      latencyProfile: transition.latency_profile,
      realizedBackendDisclosure: transition.realized_backend_disclosure ?? null,
    }))
    .sort((a, b) => a.effectiveOrder - b.effectiveOrder);
}

import { compareText } from "../records.js";
import { dataKeyed } from "../wire.js";
import type { CompiledViewRelationSnapshot, CompiledViewTransition } from "./model.js";

/** Dispositions under which a ref is visible to the participant (RAES SEM-210). */
const VISIBLE: ReadonlySet<string> = new Set([
  "observable",
  "discovered",
  "inferred",
  "disclosed",
  "deceptive",
]);

/** Each ref's disposition before any transition: the view rules', the last rule of a ref winning. */
export function initialViewRelation(
  rules: readonly { readonly information_ref: string; readonly disposition: string }[],
): ReadonlyMap<string, string> {
  const relation = new Map<string, string>();
  for (const rule of rules) {
    if (rule.information_ref !== "" && rule.disposition !== "") {
      relation.set(rule.information_ref, rule.disposition);
    }
  }
  return relation;
}

/** The refs with one of `dispositions`, sorted. */
export function viewRelationRefs(relation: ReadonlyMap<string, string>, ...dispositions: string[]): string[] {
  return refsWhere(relation, (disposition) => dispositions.includes(disposition));
}

function refsWhere(relation: ReadonlyMap<string, string>, keep: (disposition: string) => boolean): string[] {
  return [...relation]
    .filter(([, disposition]) => keep(disposition))
    .map(([ref]) => ref)
    .sort(compareText);
}

function snapshot(
  head: Pick<CompiledViewRelationSnapshot, "transitionId" | "effectiveFrom" | "effectiveOrder">,
  relation: ReadonlyMap<string, string>,
): CompiledViewRelationSnapshot {
  const sorted = [...relation].sort(([a], [b]) => compareText(a, b));
  return {
    ...head,
    viewRelation: dataKeyed(Object.fromEntries(sorted)),
    visibleRefs: refsWhere(relation, (disposition) => VISIBLE.has(disposition)),
    hiddenRefs: viewRelationRefs(relation, "hidden"),
    evidenceOnlyRefs: viewRelationRefs(relation, "evidence_only"),
    disclosedRefs: viewRelationRefs(relation, "disclosed"),
    discoveredRefs: viewRelationRefs(relation, "discovered"),
    inferredRefs: viewRelationRefs(relation, "inferred"),
    concealedRefs: viewRelationRefs(relation, "concealed"),
    deceptiveRefs: viewRelationRefs(relation, "deceptive"),
  };
}

/**
 * The view relation as it stands initially and after each transition in `effective_order`, as RAES
 * compiles it: one snapshot per state, each naming the transition that made it.
 */
export function viewRelationTimeline(
  initial: ReadonlyMap<string, string>,
  transitions: readonly CompiledViewTransition[],
): CompiledViewRelationSnapshot[] {
  const relation = new Map(initial);
  const timeline = [
    snapshot({ transitionId: "initial", effectiveFrom: "initial", effectiveOrder: -1 }, relation),
  ];
  for (const transition of transitions) {
    relation.set(transition.informationRef, transition.toDisposition);
    timeline.push({
      ...snapshot(transition, relation),
      transitionKind: transition.transitionKind,
      informationRef: transition.informationRef,
      historyEventType: transition.historyEventType,
      actionInstanceId: transition.actionInstanceId ?? "",
    });
  }
  return timeline;
}

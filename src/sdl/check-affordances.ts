import { DiagnosticCode } from "./codes.js";
import type { Finding } from "./diagnostics.js";
import { joinPointer } from "./diagnostics.js";
import type { ScenarioIndex } from "./refs.js";
import { sectionRefName } from "./refs.js";
import type { BehaviorSpecification, ToolAffordance } from "./scenario.js";

type Report = (finding: Finding) => void;

/** The authored ref a boundary uses to classify one tool affordance. */
export function toolAffordanceRef(spec: string, affordance: string): string {
  return `behavior_specifications.${spec}.tool_affordances.${affordance}`;
}

/** Checks each behavior specification's participant, role, action, boundary and outcome-rule refs. */
export function checkSpecificationRefs(index: ScenarioIndex, report: Report): void {
  const { scenario } = index;
  const outcomeRules = new Set(index.sectionNames("outcome_interpretation_rules"));
  for (const [name, spec] of Object.entries(scenario.behavior_specifications)) {
    const at = joinPointer("/behavior_specifications", name);
    const sets: readonly [readonly string[], string, (ref: string) => boolean, Finding["code"], string][] = [
      [
        spec.participant_refs,
        "participant_refs",
        (r) => Object.hasOwn(scenario.agents, r),
        DiagnosticCode.specParticipantUnbound,
        "agent",
      ],
      [
        spec.participant_role_refs,
        "participant_role_refs",
        (r) => index.roles.has(r),
        DiagnosticCode.specRoleUnbound,
        "participant role",
      ],
      [
        spec.action_contract_refs,
        "action_contract_refs",
        (r) => Object.hasOwn(scenario.action_contracts, r),
        DiagnosticCode.specActionUnbound,
        "action contract",
      ],
      [
        spec.observation_boundary_refs,
        "observation_boundary_refs",
        (r) => Object.hasOwn(scenario.observation_boundaries, r),
        DiagnosticCode.specBoundaryUnbound,
        "observation boundary",
      ],
      [
        spec.outcome_interpretation_rule_refs,
        "outcome_interpretation_rule_refs",
        (r) => outcomeRules.has(r),
        DiagnosticCode.specOutcomeRuleUnbound,
        "outcome interpretation rule",
      ],
    ];
    for (const [refs, field, known, code, what] of sets) {
      refs.forEach((ref, i) => {
        if (!known(ref)) {
          report({ code, message: `'${ref}' names no declared ${what}`, path: joinPointer(at, field, i) });
        }
      });
    }
  }
}

/** Checks every tool affordance against its specification, its participants and its boundaries (RAES SEM-219). */
export function checkToolAffordances(index: ScenarioIndex, report: Report): void {
  for (const [name, spec] of Object.entries(index.scenario.behavior_specifications)) {
    const participants = index.specificationParticipants(spec).sort();
    const relations = new Map<string, string>();
    for (const [id, affordance] of Object.entries(spec.tool_affordances)) {
      const at = joinPointer("/behavior_specifications", name, "tool_affordances", id);
      const signature = JSON.stringify([
        affordance.tool_ref ?? "",
        [...affordance.action_contract_refs].sort(),
        [...affordance.observation_boundary_refs].sort(),
      ]);
      const duplicateOf = relations.get(signature);
      if (duplicateOf === undefined) relations.set(signature, id);
      else {
        report({
          code: DiagnosticCode.affordanceDuplicateRelation,
          message: `affordance '${id}' repeats the tool, actions and boundaries of '${duplicateOf}'`,
          path: at,
          anchor: "key",
        });
      }
      checkToolRef(index, affordance, at, report);
      checkAffordanceActions(index, spec, id, affordance, participants, at, report);
      checkAffordanceBoundaries(index, name, spec, id, affordance, participants, at, report);
    }
  }
}

function checkToolRef(index: ScenarioIndex, affordance: ToolAffordance, at: string, report: Report): void {
  const ref = affordance.tool_ref;
  if (ref === undefined || sectionRefName(ref, "content", index.scenario.content) !== undefined) return;
  report({
    code: DiagnosticCode.affordanceToolRefUnbound,
    message: `tool_ref '${ref}' does not name a declared content entry`,
    path: joinPointer(at, "tool_ref"),
  });
}

function checkAffordanceActions(
  index: ScenarioIndex,
  spec: BehaviorSpecification,
  id: string,
  affordance: ToolAffordance,
  participants: readonly string[],
  at: string,
  report: Report,
): void {
  const parent = new Set(spec.action_contract_refs);
  affordance.action_contract_refs.forEach((ref, i) => {
    const path = joinPointer(at, "action_contract_refs", i);
    if (!Object.hasOwn(index.scenario.action_contracts, ref)) {
      report({
        code: DiagnosticCode.affordanceActionRefUnbound,
        message: `'${ref}' names no declared action contract`,
        path,
      });
    }
    if (!parent.has(ref)) {
      report({
        code: DiagnosticCode.affordanceActionWidensParent,
        message: `affordance '${id}' action '${ref}' is not among its specification's action_contract_refs`,
        path,
      });
    }
    for (const participant of participants) {
      if (!index.actionsByAgent.get(participant)?.has(ref)) {
        report({
          code: DiagnosticCode.affordanceActionOutsideParticipant,
          message: `affordance '${id}' action '${ref}' is not among participant '${participant}' actions`,
          path,
        });
      }
    }
  });
}

function checkAffordanceBoundaries(
  index: ScenarioIndex,
  specName: string,
  spec: BehaviorSpecification,
  id: string,
  affordance: ToolAffordance,
  participants: readonly string[],
  at: string,
  report: Report,
): void {
  const parent = new Set(spec.observation_boundary_refs);
  const bindingRef = toolAffordanceRef(specName, id);
  affordance.observation_boundary_refs.forEach((ref, i) => {
    const path = joinPointer(at, "observation_boundary_refs", i);
    const boundary = Object.hasOwn(index.scenario.observation_boundaries, ref)
      ? index.scenario.observation_boundaries[ref]
      : undefined;
    if (boundary === undefined) {
      report({
        code: DiagnosticCode.affordanceBoundaryRefUnbound,
        message: `'${ref}' names no declared observation boundary`,
        path,
      });
    }
    if (!parent.has(ref)) {
      report({
        code: DiagnosticCode.affordanceBoundaryWidensParent,
        message: `affordance '${id}' boundary '${ref}' is not among its specification's observation_boundary_refs`,
        path,
      });
    }
    for (const participant of participants) {
      if (!index.boundariesByAgent.get(participant)?.has(ref)) {
        report({
          code: DiagnosticCode.affordanceBoundaryOutsideParticipant,
          message: `affordance '${id}' boundary '${ref}' is not among participant '${participant}' observation_boundaries`,
          path,
        });
      }
    }
    if (boundary === undefined) return;
    const declared = [...boundary.observable_refs, ...boundary.hidden_refs, ...boundary.evidence_refs];
    const classified = boundary.view_rules.some((rule) => rule.information_ref === bindingRef);
    if (!declared.includes(bindingRef) || !classified) {
      report({
        code: DiagnosticCode.affordanceViewUnclassified,
        message: `boundary '${ref}' must declare '${bindingRef}' in its refs and classify it with a view rule`,
        path,
      });
    }
  });
}

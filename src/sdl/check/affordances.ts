import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { ScenarioIndex } from "../refs.js";
import type { BehaviorSpecification, ToolAffordance } from "../schema/index.js";

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

/** As RAES: the ref must resolve to exactly one declaration, and that one must be a content entry. */
function checkToolRef(index: ScenarioIndex, affordance: ToolAffordance, at: string, report: Report): void {
  const ref = affordance.tool_ref;
  if (ref === undefined) return;
  const candidates = index.declarationsNamed(ref);
  const path = joinPointer(at, "tool_ref");
  if (candidates.length > 1) {
    report({
      code: DiagnosticCode.affordanceToolRefAmbiguous,
      message: `tool_ref '${ref}' is ambiguous; use one of: ${candidates.join(", ")}`,
      path,
    });
  } else if (candidates[0] === undefined || !candidates[0].startsWith("content.")) {
    report({
      code: DiagnosticCode.affordanceToolRefUnbound,
      message: `tool_ref '${ref}' must name exactly one declared content entry`,
      path,
    });
  }
}

/** How one of an affordance's ref lists must relate to its specification and its participants. */
interface RefListRules {
  readonly field: "action_contract_refs" | "observation_boundary_refs";
  readonly noun: string;
  readonly participantField: string;
  readonly parent: ReadonlySet<string>;
  readonly byAgent: ReadonlyMap<string, ReadonlySet<string>>;
  readonly widens: Finding["code"];
  readonly outside: Finding["code"];
}

/** Each ref must be inside the specification's list and inside every participant's (an undeclared ref is reported there, as RAES does). */
function checkRefList(
  rules: RefListRules,
  id: string,
  refs: readonly string[],
  participants: readonly string[],
  at: string,
  report: Report,
): void {
  refs.forEach((ref, i) => {
    const path = joinPointer(at, rules.field, i);
    if (!rules.parent.has(ref)) {
      report({
        code: rules.widens,
        message: `affordance '${id}' ${rules.noun} '${ref}' is not among its specification's ${rules.field}`,
        path,
      });
    }
    for (const participant of participants) {
      if (!rules.byAgent.get(participant)?.has(ref)) {
        report({
          code: rules.outside,
          message: `affordance '${id}' ${rules.noun} '${ref}' is not among participant '${participant}' ${rules.participantField}`,
          path,
        });
      }
    }
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
  const rules: RefListRules = {
    field: "action_contract_refs",
    noun: "action",
    participantField: "actions",
    parent: new Set(spec.action_contract_refs),
    byAgent: index.actionsByAgent,
    widens: DiagnosticCode.affordanceActionWidensParent,
    outside: DiagnosticCode.affordanceActionOutsideParticipant,
  };
  checkRefList(rules, id, affordance.action_contract_refs, participants, at, report);
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
  const boundaries = index.scenario.observation_boundaries;
  const rules: RefListRules = {
    field: "observation_boundary_refs",
    noun: "boundary",
    participantField: "observation_boundaries",
    parent: new Set(spec.observation_boundary_refs),
    byAgent: index.boundariesByAgent,
    widens: DiagnosticCode.affordanceBoundaryWidensParent,
    outside: DiagnosticCode.affordanceBoundaryOutsideParticipant,
  };
  checkRefList(rules, id, affordance.observation_boundary_refs, participants, at, report);
  const bindingRef = toolAffordanceRef(specName, id);
  affordance.observation_boundary_refs.forEach((ref, i) => {
    const path = joinPointer(at, "observation_boundary_refs", i);
    const boundary = Object.hasOwn(boundaries, ref) ? boundaries[ref] : undefined;
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

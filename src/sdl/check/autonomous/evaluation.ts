import { DiagnosticCode } from "../../codes.js";
import { joinPointer } from "../../diagnostics.js";
import type { ScenarioIndex } from "../../refs.js";
import { isMapping } from "../../schema/index.js";
import type { PolicyContext } from "./context.js";

/** Checks a policy's evaluation authority: non-evaluated participants are green and own no authority. */
export function checkEvaluation(ctx: PolicyContext): void {
  const { index, spec, specName, policy, participants, at, report } = ctx;
  const authority = policy.evaluation_authority;
  const path = joinPointer(at, "evaluation_authority");
  if (authority.mode === "none") {
    const objectives = index.sectionNames("objectives").map((name) => objectiveAgent(index, name));
    for (const participant of participants) {
      const role = index.rolesByAgent.get(participant) ?? "";
      if (role !== "green") {
        report({
          code: DiagnosticCode.autonomousNonEvaluatedRoleNotGreen,
          message: `non-evaluated participant '${participant}' has role '${role || "(none)"}', not green`,
          path: joinPointer(path, "mode"),
        });
      }
      if (objectives.includes(participant)) {
        report({
          code: DiagnosticCode.autonomousNonEvaluatedObjectiveAuthority,
          message: `non-evaluated participant '${participant}' owns an objective`,
          path: joinPointer(path, "mode"),
        });
      }
    }
    if (spec.outcome_interpretation_rule_refs.length > 0 || spec.authority_scope_refs.length > 0) {
      report({
        code: DiagnosticCode.autonomousNonEvaluatedAuthorityWidening,
        message: `non-evaluated specification '${specName}' must not declare outcome rules or authority scopes`,
        path: joinPointer(path, "mode"),
      });
    }
    return;
  }
  authority.objective_refs.forEach((ref, i) => {
    const name = ref.startsWith("objectives.") ? ref.slice("objectives.".length) : ref;
    if (!index.declares("objectives", name)) {
      report({
        code: DiagnosticCode.autonomousEvaluationObjectiveUnbound,
        message: `objective '${ref}' is not declared`,
        path: joinPointer(path, "objective_refs", i),
      });
    }
  });
  for (const field of ["proof_producer_refs", "score_authority_refs", "receipt_authority_refs"] as const) {
    authority[field].forEach((ref, i) => {
      report({
        code: DiagnosticCode.autonomousEvaluationAuthorityNamespaceUnsupported,
        message: `${field} '${ref}' uses an authority namespace RAES does not support`,
        path: joinPointer(path, field, i),
      });
    });
  }
}

function objectiveAgent(index: ScenarioIndex, name: string): unknown {
  const objectives = (index.scenario as { objectives?: unknown }).objectives;
  const objective = isMapping(objectives) ? objectives[name] : undefined;
  return isMapping(objective) ? objective.agent : undefined;
}

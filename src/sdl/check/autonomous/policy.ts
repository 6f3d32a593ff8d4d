import { DiagnosticCode } from "../../codes.js";
import { joinPointer } from "../../diagnostics.js";
import type { ScenarioIndex } from "../../refs.js";
import type { AutonomousPolicy } from "../../schema/index.js";
import { AutonomousProfile } from "../../schema/index.js";
import { checkResourceBudgetOwners } from "./budget.js";
import type { PolicyContext, Report } from "./context.js";
import { checkEvaluation } from "./evaluation.js";
import { checkTime } from "./time.js";

const REQUIRED_FEATURES = [
  "action_contracts",
  "autonomous_execution",
  "behavior_history",
  "observation_boundaries",
  "temporal_contracts",
] as const;

/** The action refs a policy runs: `action_order` for v1, candidates (sorted by id) for v2/v3, with their paths. */
export function policyActionRefs(policy: AutonomousPolicy, at = ""): [ref: string, path: string][] {
  if (policy.profile === AutonomousProfile.v1) {
    return policy.action_order.map((ref, i) => [ref, joinPointer(at, "action_order", i)]);
  }
  return Object.keys(policy.action_candidates)
    .sort()
    .map((id) => [
      policy.action_candidates[id]?.action_ref ?? "",
      joinPointer(at, "action_candidates", id, "action_ref"),
    ]);
}

/** Checks every autonomous execution policy with RAES's `participant.autonomous-*` codes. */
export function checkAutonomousPolicies(index: ScenarioIndex, report: Report): void {
  const owners = new Map<string, string>();
  for (const [specName, spec] of Object.entries(index.scenario.behavior_specifications)) {
    const policy = spec.autonomous_execution;
    if (policy === undefined) continue;
    const at = joinPointer("/behavior_specifications", specName, "autonomous_execution");
    const participants = index.specificationParticipants(spec).sort();
    const ctx: PolicyContext = { index, specName, spec, policy, participants, at, report };
    checkDeclaration(ctx);
    checkActionsAndBoundary(ctx);
    checkTime(ctx);
    checkEvaluation(ctx);
    checkResourceBudgetOwners(ctx);
    spec.participant_refs.forEach((participant, i) => {
      if (!Object.hasOwn(index.scenario.agents, participant)) return;
      const prior = owners.get(participant);
      if (prior === undefined) owners.set(participant, specName);
      else if (prior !== specName) {
        report({
          code: DiagnosticCode.autonomousParticipantOwnerConflict,
          message: `participant '${participant}' already has the autonomous policy of '${prior}'`,
          path: joinPointer("/behavior_specifications", specName, "participant_refs", i),
        });
      }
    });
  }
}

function specPath(ctx: PolicyContext, field: string): string {
  return joinPointer("/behavior_specifications", ctx.specName, field);
}

function checkDeclaration(ctx: PolicyContext): void {
  if (ctx.spec.participant_refs.length === 0) {
    ctx.report({
      code: DiagnosticCode.autonomousExplicitParticipantsRequired,
      message: `specification '${ctx.specName}' has an autonomous policy, so it must list participant_refs`,
      path: specPath(ctx, "participant_refs"),
    });
  }
  const declared = new Set(ctx.spec.backend_feature_support_refs);
  for (const feature of REQUIRED_FEATURES) {
    if (declared.has(feature)) continue;
    ctx.report({
      code: DiagnosticCode.autonomousFeatureRequirementMissing,
      message: `autonomous execution needs backend feature '${feature}' in backend_feature_support_refs`,
      path: specPath(ctx, "backend_feature_support_refs"),
    });
  }
}

function checkActionsAndBoundary(ctx: PolicyContext): void {
  const { index, spec, policy, participants, at, report } = ctx;
  const parentActions = new Set(spec.action_contract_refs);
  for (const [ref, path] of policyActionRefs(policy, at)) {
    if (!parentActions.has(ref)) {
      report({
        code: DiagnosticCode.autonomousActionWidensParent,
        message: `policy action '${ref}' is not among the specification's action_contract_refs`,
        path,
      });
    }
    for (const participant of participants) {
      if (index.actionsByAgent.get(participant)?.has(ref)) continue;
      report({
        code: DiagnosticCode.autonomousActionOutsideParticipant,
        message: `policy action '${ref}' is not among participant '${participant}' actions`,
        path,
      });
    }
  }
  const boundary = policy.observation_boundary_ref;
  const path = joinPointer(at, "observation_boundary_ref");
  if (!spec.observation_boundary_refs.includes(boundary)) {
    report({
      code: DiagnosticCode.autonomousBoundaryWidensParent,
      message: `policy boundary '${boundary}' is not among the specification's observation_boundary_refs`,
      path,
    });
  }
  for (const participant of participants) {
    if (index.boundariesByAgent.get(participant)?.has(boundary)) continue;
    report({
      code: DiagnosticCode.autonomousBoundaryOutsideParticipant,
      message: `policy boundary '${boundary}' is not among participant '${participant}' observation_boundaries`,
      path,
    });
  }
}

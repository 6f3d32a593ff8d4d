import { checkEvaluation } from "./check-evaluation.js";
import { DiagnosticCode } from "./codes.js";
import type { Finding } from "./diagnostics.js";
import { joinPointer } from "./diagnostics.js";
import type { ScenarioIndex } from "./refs.js";
import { sectionRefName } from "./refs.js";
import type { BehaviorSpecification, Clock, ProgressionPolicy, TemporalConstraint } from "./scenario.js";
import type { AutonomousPolicy } from "./schema-behavior.js";
import { AutonomousProfile } from "./schema-behavior.js";

type Report = (finding: Finding) => void;

const REQUIRED_FEATURES = [
  "action_contracts",
  "autonomous_execution",
  "behavior_history",
  "observation_boundaries",
  "temporal_contracts",
] as const;

/** One autonomous policy under check, with its specification and participants. */
export interface PolicyContext {
  readonly index: ScenarioIndex;
  readonly specName: string;
  readonly spec: BehaviorSpecification;
  readonly policy: AutonomousPolicy;
  readonly participants: readonly string[];
  readonly at: string;
  readonly report: Report;
}

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

function checkTime(ctx: PolicyContext): void {
  const { index, policy, at, report } = ctx;
  const { clocks, time_progression_policies: progressions } = index.scenario;
  const clockName = sectionRefName(policy.clock_ref, "clocks", clocks);
  const clock: Clock | undefined = clockName === undefined ? undefined : clocks[clockName];
  if (clock === undefined) {
    report({
      code: DiagnosticCode.autonomousClockUnbound,
      message: `clock_ref '${policy.clock_ref}' names no declared clock`,
      path: joinPointer(at, "clock_ref"),
    });
  }
  const progressionName = sectionRefName(
    policy.progression_policy_ref,
    "time_progression_policies",
    progressions,
  );
  const progression = progressionName === undefined ? undefined : progressions[progressionName];
  const progressionPath = joinPointer(at, "progression_policy_ref");
  if (progression === undefined) {
    report({
      code: DiagnosticCode.autonomousProgressionUnbound,
      message: `progression_policy_ref '${policy.progression_policy_ref}' names no declared progression policy`,
      path: progressionPath,
    });
  } else if (
    (sectionRefName(progression.clock_ref, "clocks", clocks) ?? progression.clock_ref) !==
    (clockName ?? policy.clock_ref)
  ) {
    report({
      code: DiagnosticCode.autonomousProgressionClockMismatch,
      message: `progression policy '${progressionName}' drives clock '${progression.clock_ref}', not '${policy.clock_ref}'`,
      path: progressionPath,
    });
  }
  const cadences = checkConstraints(ctx, clockName ?? policy.clock_ref);
  checkProgression(ctx, clock, progression, cadences);
}

function checkConstraints(ctx: PolicyContext, clockName: string): TemporalConstraint[] {
  const { index, policy, at, report, participants, specName } = ctx;
  const constraints = index.scenario.temporal_constraints;
  const activity = policy.profile !== AutonomousProfile.v1;
  const refs: [string, string][] =
    policy.profile === AutonomousProfile.v1
      ? policy.temporal_constraint_refs.map((ref, i) => [ref, joinPointer(at, "temporal_constraint_refs", i)])
      : [
          ...policy.work_window_refs.map((ref, i): [string, string] => [
            ref,
            joinPointer(at, "work_window_refs", i),
          ]),
          ...policy.pause_window_refs.map((ref, i): [string, string] => [
            ref,
            joinPointer(at, "pause_window_refs", i),
          ]),
        ];
  const cadences: TemporalConstraint[] = [];
  for (const [ref, path] of refs) {
    const name = sectionRefName(ref, "temporal_constraints", constraints);
    const constraint = name === undefined ? undefined : constraints[name];
    if (constraint === undefined) {
      report({
        code: DiagnosticCode.autonomousConstraintUnbound,
        message: `'${ref}' names no declared temporal constraint`,
        path,
      });
      continue;
    }
    const kind = constraint.constraint_kind;
    if (activity && kind !== "window") {
      report({
        code: DiagnosticCode.autonomousActivityWindowKindInvalid,
        message: `'${ref}' is a ${kind} constraint, not a window`,
        path,
      });
    }
    if (activity && kind === "window") {
      const subjects = new Set(constraint.subject_refs);
      if (!subjects.has(specName) && !participants.every((participant) => subjects.has(participant))) {
        report({
          code: DiagnosticCode.autonomousActivityWindowSubjectMismatch,
          message: `window '${ref}' covers neither specification '${specName}' nor all its participants`,
          path,
        });
      }
    }
    if (
      (sectionRefName(constraint.clock_ref, "clocks", index.scenario.clocks) ?? constraint.clock_ref) !==
      clockName
    ) {
      report({
        code: DiagnosticCode.autonomousConstraintClockMismatch,
        message: `constraint '${ref}' is on clock '${constraint.clock_ref}', not the policy's '${policy.clock_ref}'`,
        path,
      });
    }
    if (kind === "cadence") cadences.push(constraint);
  }
  if (!activity && cadences.length !== 1) {
    report({
      code: DiagnosticCode.autonomousCadenceMissing,
      message: `a v1 policy needs exactly one cadence constraint; it has ${cadences.length}`,
      path: joinPointer(at, "temporal_constraint_refs"),
    });
  }
  return cadences;
}

function checkProgression(
  ctx: PolicyContext,
  clock: Clock | undefined,
  progression: ProgressionPolicy | undefined,
  cadences: readonly TemporalConstraint[],
): void {
  const { policy, at, report } = ctx;
  const path = joinPointer(at, "progression_policy_ref");
  const mode = progression?.advancement_mode;
  if (mode === "externally_paced") {
    report({
      code: DiagnosticCode.autonomousProgressionDriverUnsupported,
      message: "externally paced progression has no runtime driver",
      path,
    });
  }
  if (
    (mode === "real_time" || mode === "dilated") &&
    clock !== undefined &&
    clock.authority_kind !== "runtime"
  ) {
    report({
      code: DiagnosticCode.autonomousClockAuthorityUnsupported,
      message: `${mode} progression needs a runtime-owned clock`,
      path: joinPointer(at, "clock_ref"),
    });
  }
  const cadence = cadences.length === 1 ? cadences[0] : undefined;
  const startTick = cadence?.start?.tick ?? 0;
  if (cadence !== undefined && startTick < 0) {
    report({
      code: DiagnosticCode.autonomousCadenceUnreachable,
      message: `cadence starts at negative tick ${startTick}`,
      path,
    });
  }
  if (mode !== "stepped") return;
  const step = progression?.step_ticks;
  if (policy.profile !== AutonomousProfile.v1) {
    const { minimum_ticks: min, maximum_ticks: max } = policy.timing;
    if (step === undefined || min % step !== 0 || max % step !== 0) {
      report({
        code: DiagnosticCode.autonomousActivityTimingUnreachable,
        message: `timing bounds ${min}..${max} are not multiples of step_ticks ${step ?? "(none)"}`,
        path,
      });
    }
    return;
  }
  if (cadence === undefined) return;
  const every = cadence.cadence_ticks;
  if (
    step === undefined ||
    every === undefined ||
    startTick < 0 ||
    startTick % step !== 0 ||
    every % step !== 0
  ) {
    report({
      code: DiagnosticCode.autonomousCadenceUnreachable,
      message: `cadence (start ${startTick}, every ${every ?? "?"}) is not reachable in steps of ${step ?? "(none)"}`,
      path,
    });
  }
}

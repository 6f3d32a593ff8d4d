import { DiagnosticCode } from "../../codes.js";
import { joinPointer } from "../../diagnostics.js";
import { sectionRefName } from "../../refs.js";
import type { Clock, ProgressionPolicy, TemporalConstraint } from "../../schema/index.js";
import { AutonomousProfile } from "../../schema/index.js";
import type { PolicyContext } from "./context.js";

/** Checks the policy's clock, progression policy and cadence constraints. */
export function checkTime(ctx: PolicyContext): void {
  const { index, policy, at, report } = ctx;
  const { clocks, time_progression_policies: progressions } = index.scenario;
  // RAES looks clock and progression refs up by bare name only, and compares clock refs as written.
  const clock: Clock | undefined = Object.hasOwn(clocks, policy.clock_ref)
    ? clocks[policy.clock_ref]
    : undefined;
  if (clock === undefined) {
    report({
      code: DiagnosticCode.autonomousClockUnbound,
      message: `clock_ref '${policy.clock_ref}' names no declared clock (a bare clock name is required)`,
      path: joinPointer(at, "clock_ref"),
    });
  }
  const progressionName = policy.progression_policy_ref;
  const progression = Object.hasOwn(progressions, progressionName)
    ? progressions[progressionName]
    : undefined;
  const progressionPath = joinPointer(at, "progression_policy_ref");
  if (progression === undefined) {
    report({
      code: DiagnosticCode.autonomousProgressionUnbound,
      message: `progression_policy_ref '${progressionName}' names no declared progression policy (a bare name is required)`,
      path: progressionPath,
    });
  } else if (progression.clock_ref !== policy.clock_ref) {
    report({
      code: DiagnosticCode.autonomousProgressionClockMismatch,
      message: `progression policy '${progressionName}' drives clock '${progression.clock_ref}', not '${policy.clock_ref}'`,
      path: progressionPath,
    });
  }
  const cadences = checkConstraints(ctx, policy.clock_ref);
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
    if (constraint.clock_ref !== clockName) {
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

import type { AutonomousPolicy, Scenario } from "../sdl/index.js";
import { AutonomousProfile, sectionRefName } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import type { CompiledActivityPolicy, CompiledWindow } from "./model.js";
import { compareText } from "./records.js";

/** The v2/v3 activity fields of a policy (candidates sorted by id, windows by position); undefined for v1. */
export function compileActivity(
  scenario: Scenario,
  policy: AutonomousPolicy,
): CompiledActivityPolicy | undefined {
  if (policy.profile === AutonomousProfile.v1) return undefined;
  const progressionName =
    sectionRefName(
      policy.progression_policy_ref,
      "time_progression_policies",
      scenario.time_progression_policies,
    ) ?? policy.progression_policy_ref;
  const progression = scenario.time_progression_policies[progressionName];
  const stepped = progression?.advancement_mode === "stepped" && progression.step_ticks !== undefined;
  const actionAddress = (ref: string) =>
    Addresses.actionContract(sectionRefName(ref, "action_contracts", scenario.action_contracts) ?? ref);
  const candidates = Object.entries(policy.action_candidates)
    .sort(([a], [b]) => compareText(a, b))
    .map(([id, c]) => ({
      id,
      actionContractAddress: actionAddress(c.action_ref),
      weight: c.weight,
      dependsOn: [...c.depends_on],
      retryableFailureClasses: [...c.retryable_failure_classes],
      maxRetries: c.max_retries,
      cooldownTicks: c.cooldown_ticks,
    }));
  return {
    workWindows: windows(scenario, policy.work_window_refs),
    pauseWindows: windows(scenario, policy.pause_window_refs),
    timingMinimumTicks: policy.timing.minimum_ticks,
    timingMaximumTicks: policy.timing.maximum_ticks,
    ...(stepped && progression?.step_ticks !== undefined ? { stepTicks: progression.step_ticks } : {}),
    outsideWindowDisposition: policy.outside_window_disposition,
    emptyEligibleDisposition: policy.empty_eligible_disposition,
    stochasticControlRef: policy.stochastic_control_ref,
    candidates,
    maxOccurrences: policy.max_occurrences,
    maxBurstSize: policy.max_burst_size,
  };
}

function windows(scenario: Scenario, refs: readonly string[]): CompiledWindow[] {
  const out: CompiledWindow[] = [];
  for (const ref of refs) {
    const name = sectionRefName(ref, "temporal_constraints", scenario.temporal_constraints) ?? ref;
    const constraint = scenario.temporal_constraints[name];
    // Validation refuses open-ended windows; an unresolved one simply contributes no availability.
    if (!constraint?.start || !constraint.end) continue;
    out.push({
      address: Addresses.temporalConstraint(name),
      start: { tick: constraint.start.tick, microstep: constraint.start.microstep },
      end: { tick: constraint.end.tick, microstep: constraint.end.microstep },
    });
  }
  return out.sort(
    (a, b) =>
      a.start.tick - b.start.tick ||
      a.start.microstep - b.start.microstep ||
      a.end.tick - b.end.tick ||
      a.end.microstep - b.end.microstep,
  );
}

import type { Scenario, ScenarioIndex } from "../sdl/index.js";
import { sectionRefName } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import type {
  CompiledClock,
  CompiledProgressionPolicy,
  CompiledTemporalConstraint,
  CompiledTimeDomain,
  RuntimeModel,
} from "./model.js";
import { byAddress } from "./records.js";

/** RAES's participant time domain for each SDL time-domain kind. */
const PARTICIPANT_TIME_DOMAIN: Readonly<Record<string, string>> = {
  wall_clock: "wall_clock_time",
  simulated: "simulation_time",
  logical: "scenario_time",
  monotonic: "scenario_time",
  external: "backend_time",
};

function isMapping(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The sections a temporal subject may name, in the order RAES looks them up. */
const SUBJECT_SECTIONS = [
  "nodes",
  "infrastructure",
  "features",
  "conditions",
  "propositions",
  "assertions",
  "vulnerabilities",
  "entities",
  "injects",
  "events",
  "scripts",
  "stories",
  "content",
  "generated_artifacts",
  "persistent_volumes",
  "accounts",
  "identity_domains",
  "relationships",
  "agents",
  "action_contracts",
  "observation_boundaries",
  "outcome_interpretation_rules",
  "behavior_specifications",
  "evidence_requirements",
  "objectives",
  "workflows",
] as const;

/**
 * A temporal subject's address as RAES compiles it: `sdl.<section>.<name>` for the first section that
 * declares the bare or section-qualified name, else `sdl.workflow-step.<workflow>.<step>`; a ref that
 * resolves to neither (validation refuses it) keeps its authored text.
 */
function subjectAddress(index: ScenarioIndex, ref: string): string {
  for (const section of SUBJECT_SECTIONS) {
    const names = index.sectionNames(section);
    const prefix = `${section}.`;
    const name = names.includes(ref)
      ? ref
      : ref.startsWith(prefix) && names.includes(ref.slice(prefix.length))
        ? ref.slice(prefix.length)
        : undefined;
    if (name !== undefined) return `sdl.${section.replaceAll("_", "-")}.${name}`;
  }
  const workflows = (index.scenario as { readonly workflows?: unknown }).workflows;
  if (isMapping(workflows)) {
    for (const [workflow, body] of Object.entries(workflows)) {
      const steps = isMapping(body) ? body.steps : undefined;
      const step = ref.startsWith(`${workflow}.`) ? ref.slice(workflow.length + 1) : undefined;
      if (step !== undefined && isMapping(steps) && Object.hasOwn(steps, step)) {
        return `sdl.workflow-step.${workflow}.${step}`;
      }
    }
  }
  return ref;
}

/** Compiles the time model: domains, clocks, progression policies and temporal constraints, as RAES does. */
export function compileTime(
  scenario: Scenario,
  index: ScenarioIndex,
): Pick<RuntimeModel, "timeDomains" | "clocks" | "progressionPolicies" | "temporalConstraints"> {
  const clockAddress = (ref: string) =>
    Addresses.clock(sectionRefName(ref, "clocks", scenario.clocks) ?? ref);
  const domainName = (ref: string) => sectionRefName(ref, "time_domains", scenario.time_domains) ?? ref;
  const timeDomains = byAddress(
    Object.entries(scenario.time_domains).map(
      ([name, domain]): CompiledTimeDomain => ({
        address: Addresses.timeDomain(name),
        kind: domain.kind,
        tickPeriodNumerator: domain.tick_period_seconds.numerator,
        tickPeriodDenominator: domain.tick_period_seconds.denominator,
        epoch: domain.epoch,
        visibility: domain.visibility,
        description: domain.description,
      }),
    ),
  );
  const clocks = byAddress(
    Object.entries(scenario.clocks).map(
      ([name, clock]): CompiledClock => ({
        address: Addresses.clock(name),
        timeDomainAddress: Addresses.timeDomain(domainName(clock.time_domain_ref)),
        authorityKind: clock.authority_kind,
        authorityRef: clock.authority_ref,
        monotonicity: clock.monotonicity,
        participantTimeDomain:
          PARTICIPANT_TIME_DOMAIN[scenario.time_domains[domainName(clock.time_domain_ref)]?.kind ?? ""] ??
          "scenario_time",
        supportsPause: clock.supports_pause,
        supportsReset: clock.supports_reset,
        supportsJump: clock.supports_jump,
        description: clock.description,
      }),
    ),
  );
  const progressionPolicies = byAddress(
    Object.entries(scenario.time_progression_policies).map(
      ([name, policy]): CompiledProgressionPolicy => ({
        address: Addresses.progressionPolicy(name),
        clockAddress: clockAddress(policy.clock_ref),
        advancementMode: policy.advancement_mode,
        pacingNumerator: policy.pacing_ratio?.numerator ?? 1,
        pacingDenominator: policy.pacing_ratio?.denominator ?? 1,
        synchronizationMode: policy.synchronization_mode,
        stepTicks: policy.step_ticks ?? null,
        driftBoundTicks: policy.drift_bound_ticks ?? null,
        resetBehavior: policy.reset_behavior,
        replayBehavior: policy.replay_behavior,
        description: policy.description,
      }),
    ),
  );
  const temporalConstraints = byAddress(
    Object.entries(scenario.temporal_constraints).map(
      ([name, constraint]): CompiledTemporalConstraint => ({
        address: Addresses.temporalConstraint(name),
        kind: constraint.constraint_kind,
        clockAddress: clockAddress(constraint.clock_ref),
        subjectAddresses: constraint.subject_refs.map((ref) => subjectAddress(index, ref)),
        startTick: constraint.start?.tick ?? null,
        startMicrostep: constraint.start?.microstep ?? null,
        endTick: constraint.end?.tick ?? null,
        endMicrostep: constraint.end?.microstep ?? null,
        durationTicks: constraint.duration_ticks ?? null,
        cadenceTicks: constraint.cadence_ticks ?? null,
        description: constraint.description,
      }),
    ),
  );
  return { timeDomains, clocks, progressionPolicies, temporalConstraints };
}

import type { Scenario } from "../sdl/index.js";
import { ScenarioIndex, scenarioErrors, sectionRefName } from "../sdl/index.js";
import { Addresses, resolveRefAddresses } from "./addresses.js";
import { compileBehavior } from "./compile-behavior.js";
import { CompileError, CompileErrorCode } from "./errors.js";
import type {
  CompiledActionContract,
  CompiledClock,
  CompiledObservationBoundary,
  CompiledParticipant,
  CompiledProgressionPolicy,
  CompiledTemporalConstraint,
  RuntimeModel,
} from "./model.js";
import { RUNTIME_MODEL_SCHEMA } from "./model.js";
import { byAddress } from "./records.js";

/**
 * The scenario's errors as `code path: message` lines. A value that is not a decoded scenario makes the
 * checks throw; it is refused the same way.
 */
function errorLines(scenario: Scenario): readonly string[] {
  try {
    return scenarioErrors(scenario).map((error) => `${error.code} ${error.path}: ${error.message}`);
  } catch (error) {
    return [`the value is not a loaded scenario: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * Compiles a loaded scenario (one `loadScenario` reported no errors for) into the address-keyed runtime
 * model; pure. A scenario with errors is refused with `compiler.scenario-invalid` and nothing compiled.
 */
export function compileScenario(scenario: Scenario): RuntimeModel {
  const errors = errorLines(scenario);
  if (errors.length > 0) {
    throw new CompileError(CompileErrorCode.scenario_invalid, "the scenario has errors", errors);
  }
  const index = new ScenarioIndex(scenario);
  const actionContracts = byAddress(
    Object.entries(scenario.action_contracts).map(([name, contract]) => {
      const refs = [
        ...contract.effects.flatMap((effect) => effect.target_refs),
        ...contract.preconditions.flatMap((precondition) => precondition.support_refs),
      ];
      const compiled: CompiledActionContract = {
        address: Addresses.actionContract(name),
        name,
        targetAddresses: resolveRefAddresses(scenario, refs),
        sharedTimeBound: contract.temporal_contracts.length > 0,
        failureClasses: [...contract.failure_classes],
      };
      return compiled;
    }),
  );
  const behavior = compileBehavior(index, actionContracts);
  return {
    schema: RUNTIME_MODEL_SCHEMA,
    scenario: { name: scenario.name, version: scenario.version },
    actionContracts,
    observationBoundaries: compileBoundaries(scenario),
    participants: compileParticipants(index),
    behaviorSpecifications: behavior.behaviorSpecifications,
    autonomousPolicies: behavior.autonomousPolicies,
    toolAffordances: behavior.toolAffordances,
    affordanceBindings: behavior.affordanceBindings,
    ...compileTime(scenario),
  };
}

function compileBoundaries(scenario: Scenario): Record<string, CompiledObservationBoundary> {
  return byAddress(
    Object.entries(scenario.observation_boundaries).map(([name, boundary]) => {
      const dispositions = new Map(
        boundary.view_rules.map((rule) => [rule.information_ref, rule.disposition]),
      );
      const compiled: CompiledObservationBoundary = {
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
      };
      return compiled;
    }),
  );
}

/** Builds each name's address once; many agents name the same few contracts and boundaries. */
function addressCache(build: (name: string) => string): (name: string) => string {
  const cache = new Map<string, string>();
  return (name) => {
    let built = cache.get(name);
    if (built === undefined) {
      built = build(name);
      cache.set(name, built);
    }
    return built;
  };
}

function compileParticipants(index: ScenarioIndex): Record<string, CompiledParticipant> {
  const { scenario } = index;
  const actionAddress = addressCache(Addresses.actionContract);
  const boundaryAddress = addressCache(Addresses.observationBoundary);
  return byAddress(
    Object.entries(scenario.agents).map(([name, agent]) => {
      const actions = agent.actions
        .map((ref) => sectionRefName(ref, "action_contracts", scenario.action_contracts))
        .filter((action): action is string => action !== undefined);
      const boundaries = agent.observation_boundaries
        .map((ref) => sectionRefName(ref, "observation_boundaries", scenario.observation_boundaries))
        .filter((boundary): boundary is string => boundary !== undefined);
      const role = index.rolesByAgent.get(name);
      const compiled: CompiledParticipant = {
        address: Addresses.participant(name),
        agent: name,
        ...(index.entities.has(agent.entity) ? { entity: agent.entity } : {}),
        ...(role === undefined ? {} : { role }),
        actionContractAddresses: [...new Set(actions)].map(actionAddress),
        observationBoundaryAddresses: [...new Set(boundaries)].map(boundaryAddress),
      };
      return compiled;
    }),
  );
}

/** RAES's participant time domain for each SDL time-domain kind. */
const PARTICIPANT_TIME_DOMAIN: Readonly<Record<string, string>> = {
  wall_clock: "wall_clock_time",
  simulated: "simulation_time",
  logical: "scenario_time",
  monotonic: "scenario_time",
  external: "backend_time",
};

function compileTime(
  scenario: Scenario,
): Pick<RuntimeModel, "clocks" | "progressionPolicies" | "temporalConstraints"> {
  const clockAddress = (ref: string) =>
    Addresses.clock(sectionRefName(ref, "clocks", scenario.clocks) ?? ref);
  const domainName = (ref: string) => sectionRefName(ref, "time_domains", scenario.time_domains) ?? ref;
  const clocks = byAddress(
    Object.entries(scenario.clocks).map(
      ([name, clock]): CompiledClock => ({
        address: Addresses.clock(name),
        timeDomain: domainName(clock.time_domain_ref),
        participantTimeDomain:
          PARTICIPANT_TIME_DOMAIN[scenario.time_domains[domainName(clock.time_domain_ref)]?.kind ?? ""] ??
          "scenario_time",
        supportsPause: clock.supports_pause,
        supportsReset: clock.supports_reset,
      }),
    ),
  );
  const progressionPolicies = byAddress(
    Object.entries(scenario.time_progression_policies).map(
      ([name, policy]): CompiledProgressionPolicy => ({
        address: Addresses.progressionPolicy(name),
        clockAddress: clockAddress(policy.clock_ref),
        advancementMode: policy.advancement_mode,
        stepTicks: policy.step_ticks ?? 0,
        resetBehavior: policy.reset_behavior,
      }),
    ),
  );
  const temporalConstraints = byAddress(
    Object.entries(scenario.temporal_constraints).map(
      ([name, constraint]): CompiledTemporalConstraint => ({
        address: Addresses.temporalConstraint(name),
        kind: constraint.constraint_kind,
        clockAddress: clockAddress(constraint.clock_ref),
        startTick: constraint.start?.tick ?? 0,
        ...(constraint.cadence_ticks === undefined ? {} : { cadenceTicks: constraint.cadence_ticks }),
        subjectRefs: [...constraint.subject_refs],
      }),
    ),
  );
  return { clocks, progressionPolicies, temporalConstraints };
}

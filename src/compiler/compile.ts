import { canonicalDigest } from "../records/index.js";
import type { Scenario } from "../sdl/index.js";
import { ScenarioIndex, scenarioErrors, sectionRefName } from "../sdl/index.js";
import { Addresses, resolveRefAddresses } from "./addresses.js";
import { compileBehavior } from "./compile-behavior.js";
import { compileTime } from "./compile-time.js";
import { CompileError, CompileErrorCode } from "./errors.js";
import type {
  CompiledActionContract,
  CompiledObservationBoundary,
  CompiledParticipant,
  RuntimeModel,
} from "./model.js";
import { RUNTIME_MODEL_SCHEMA } from "./model.js";
import { byAddress, compareText } from "./records.js";

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
      const address = Addresses.actionContract(name);
      const temporal = contract.temporal_contracts;
      const compiled: CompiledActionContract = {
        address,
        name,
        targetAddresses: resolveRefAddresses(scenario, refs),
        sharedTimeBound: temporal.length > 0,
        failureClasses: distinct(contract.failure_classes),
        actionName: name,
        semanticVersion: contract.semantic_version,
        lifecycleState: contract.lifecycle_state,
        behavioralGranularity: contract.behavioral_granularity,
        preconditionClasses: distinct(contract.preconditions.map((item) => item.precondition_class)),
        effectClasses: distinct(contract.effects.map((item) => item.effect_class)),
        backendFailureMappings: contract.backend_failure_mappings.map((mapping) => ({
          backendErrorCode: mapping.backend_error_code,
          failureClass: mapping.failure_class,
          diagnostic: mapping.diagnostic,
        })),
        interactionClasses: distinct(contract.interactions.map((item) => item.interaction_class)),
        sharedStateRefs: distinct(contract.interactions.flatMap((item) => item.shared_state_refs)),
        temporalContractIds: distinct(temporal.map((item) => item.temporal_id)),
        temporalKinds: distinct(temporal.map((item) => item.temporal_kind)),
        timeDomains: distinct(temporal.map((item) => item.time_domain)),
        clockAuthorities: distinct(temporal.map((item) => item.clock_authority)),
        backendTimingDisclosures: contract.backend_timing_disclosures.map((item) => ({
          disclosureId: item.disclosure_id,
          disclosureKind: item.disclosure_kind,
          supportMode: item.support_mode,
          description: item.description,
          affectedTemporalIds: [...item.affected_temporal_ids],
          limitations: [...item.limitations],
        })),
        ...argumentShape(address, contract.arguments),
        orderingDependencies: [],
        refreshDependencies: [],
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
    ...compileTime(scenario, index),
  };
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function isMapping(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** RAES's argument shape: a digest of the canonical authored `arguments`, and the definitions by name. */
function argumentShape(
  address: string,
  authored: unknown,
): Pick<CompiledActionContract, "argumentShapeRef" | "argumentDefinitions"> {
  const args = isMapping(authored) ? authored : {};
  const hex = canonicalDigest(args).slice("sha256:".length);
  const argumentDefinitions = Object.keys(args)
    .sort(compareText)
    .flatMap((name) => {
      const definition = args[name];
      return isMapping(definition) ? [{ name, ...definition }] : [];
    });
  return { argumentShapeRef: `${address}.argument-shape.sha256-${hex}`, argumentDefinitions };
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
        boundaryName: name,
        projectionBasis: boundary.projection_basis,
        observableRefs: [...boundary.observable_refs],
        hiddenRefs: [...boundary.hidden_refs],
        realizedViewDisclosure: boundary.realized_view_disclosure ?? "",
        orderingDependencies: [],
        refreshDependencies: [],
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
        name,
        participantName: name,
        entityName: agent.entity,
        startingAssertionRefs: [...agent.starting_assertions],
        authorityAnchorRefs: [...agent.authority_anchors],
        operatingScopeRefs: [...agent.operating_scope],
        interpretationMode: "role-neutral-projection",
        orderingDependencies: [],
      };
      return compiled;
    }),
  );
}

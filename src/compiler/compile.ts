import { canonicalDigest } from "../records/index.js";
import type { Scenario } from "../sdl/index.js";
import { ScenarioIndex, scenarioErrors } from "../sdl/index.js";
import { Addresses } from "./addresses.js";
import { compileBoundaries } from "./boundaries/index.js";
import { compileBehavior } from "./compile-behavior.js";
import { compileTime } from "./compile-time.js";
import { CompileError, CompileErrorCode } from "./errors.js";
import type { CompiledActionContract, RuntimeModel } from "./model.js";
import { RUNTIME_MODEL_SCHEMA } from "./model.js";
import { compileParticipants } from "./participants/index.js";
import { byAddress, compareText } from "./records.js";
import { RefIndex } from "./ref-index.js";

/**
 * The scenario's errors as `code path: message` lines. A value that is not a decoded scenario makes the
 * checks throw; it is refused the same way.
 */
function errorLines(scenario: Scenario): readonly string[] {
  try {
    return scenarioErrors(scenario).map((error) => `${error.code} ${error.path}: ${error.message}`);
  } catch {
    // A fixed line: what the checks threw (a TypeError about undefined) says nothing about the scenario.
    return [
      "the value is not a loaded scenario: loadScenario returns one for a scenario file without errors",
    ];
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
  const refIndex = new RefIndex(scenario);
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
        targetAddresses: refIndex.addresses(refs),
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
  const behavior = compileBehavior(index, refIndex, actionContracts);
  return {
    schema: RUNTIME_MODEL_SCHEMA,
    scenario: { name: scenario.name, version: scenario.version },
    actionContracts,
    observationBoundaries: compileBoundaries(scenario),
    participants: compileParticipants(index, refIndex),
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

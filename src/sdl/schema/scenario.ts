import { DiagnosticCode } from "../codes.js";
import { joinPointer } from "../diagnostics.js";
import { actionContractShape, agentShape } from "./actions.js";
import { behaviorSpecificationShape } from "./behavior.js";
import { observationBoundaryShape } from "./boundaries.js";
import type { DecodeContext, Infer, Shape } from "./shape.js";
import { isMapping, opaque, record, text } from "./shape.js";
import type { OptionalField } from "./struct.js";
import { optional, required, struct, withDefault } from "./struct.js";
import { clockShape, progressionPolicyShape, temporalConstraintShape, timeDomainShape } from "./time.js";
import { contentShape, entityShape, nodeShape } from "./topology.js";

/** RAES top-level sections that raes-ts keeps as authored but does not interpret. */
export const UNINTERPRETED_SECTIONS = [
  "infrastructure",
  "features",
  "conditions",
  "propositions",
  "assertions",
  "vulnerabilities",
  "injects",
  "events",
  "scripts",
  "stories",
  "generated_artifacts",
  "persistent_volumes",
  "accounts",
  "identity_domains",
  "identity_forests",
  "identity_facades",
  "deployment_tenants",
  "deployment_cells",
  "relationships",
  "forwarding_agents",
  "outcome_interpretation_rules",
  "evidence_requirements",
  "time_domain_mappings",
  "objectives",
  "workflows",
  "module",
  "imports",
  "realization",
  "variables",
  "variation_points",
] as const;

type UninterpretedSection = (typeof UNINTERPRETED_SECTIONS)[number];

const keptSections = Object.fromEntries(
  UNINTERPRETED_SECTIONS.map((name) => [name, optional(opaque())]),
) as Record<UninterpretedSection, OptionalField<unknown>>;

/**
 * `objectives`: kept as authored, except RAES's actor rule, which raes-ts checks: each objective names
 * exactly one of a non-empty `agent` or `entity`.
 */
const objectivesShape: Shape<unknown> = {
  expected: "a mapping",
  decode(raw, pointer, ctx) {
    if (!isMapping(raw)) return raw;
    for (const [name, objective] of Object.entries(raw)) {
      if (!isMapping(objective)) continue;
      const named = (key: string) => objective[key] !== undefined && objective[key] !== "";
      if (named("agent") === named("entity")) {
        ctx.report({
          code: DiagnosticCode.modelInvalid,
          message: "an objective names exactly one of 'agent' or 'entity'",
          path: joinPointer(pointer, name),
        });
      }
    }
    return raw;
  },
};

const scenarioShape = struct({
  name: required(text({ identifier: true })),
  version: withDefault(text(), "*"),
  description: withDefault(text(), ""),
  nodes: withDefault(record(nodeShape), {}),
  entities: withDefault(record(entityShape), {}),
  content: withDefault(record(contentShape), {}),
  agents: withDefault(record(agentShape), {}),
  action_contracts: withDefault(record(actionContractShape), {}),
  observation_boundaries: withDefault(record(observationBoundaryShape), {}),
  behavior_specifications: withDefault(record(behaviorSpecificationShape), {}),
  time_domains: withDefault(record(timeDomainShape), {}),
  clocks: withDefault(record(clockShape), {}),
  time_progression_policies: withDefault(record(progressionPolicyShape), {}),
  temporal_constraints: withDefault(record(temporalConstraintShape), {}),
  ...keptSections,
  // Overrides the kept `objectives` section: still kept as authored, with the actor rule checked.
  objectives: optional(objectivesShape),
});

/** A loaded RAES scenario: interpreted sections typed and closed, other RAES sections kept as authored. */
export type Scenario = Infer<typeof scenarioShape>;
/** A node (`nodes.<name>`). */
export type ScenarioNode = Scenario["nodes"][string];
/** A content entry (`content.<name>`). */
export type ScenarioContent = Scenario["content"][string];
/** An agent (`agents.<name>`). */
export type Agent = Scenario["agents"][string];
/** An action contract (`action_contracts.<name>`). */
export type ActionContract = Scenario["action_contracts"][string];
/** An observation boundary (`observation_boundaries.<name>`). */
export type ObservationBoundary = Scenario["observation_boundaries"][string];
/** A behavior specification (`behavior_specifications.<name>`). */
export type BehaviorSpecification = Scenario["behavior_specifications"][string];
/** A tool affordance (`behavior_specifications.<spec>.tool_affordances.<id>`). */
export type ToolAffordance = BehaviorSpecification["tool_affordances"][string];
/** A time domain. */
export type TimeDomain = Scenario["time_domains"][string];
/** A clock. */
export type Clock = Scenario["clocks"][string];
/** A time progression policy. */
export type ProgressionPolicy = Scenario["time_progression_policies"][string];
/** A temporal constraint. */
export type TemporalConstraint = Scenario["temporal_constraints"][string];

/** Decodes a whole document against the closed scenario shape; warns once per uninterpreted section. */
export function decodeScenario(raw: unknown, ctx: DecodeContext): Scenario | undefined {
  if (!isMapping(raw)) {
    // RAES rejects a non-mapping document at its parse stage.
    ctx.report({ code: DiagnosticCode.parse, message: "a scenario must be a YAML mapping", path: "" });
    return undefined;
  }
  const uninterpreted: readonly string[] = UNINTERPRETED_SECTIONS;
  for (const key of Object.keys(raw)) {
    if (uninterpreted.includes(key)) {
      ctx.report({
        code: DiagnosticCode.sectionUninterpreted,
        severity: "warning",
        message: `section '${key}' is kept but not interpreted by raes-ts`,
        path: joinPointer("", key),
        anchor: "key",
      });
    }
  }
  return scenarioShape.decode(raw, "", ctx);
}

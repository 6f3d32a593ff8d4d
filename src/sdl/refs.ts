import type { BehaviorSpecification, Entity, Scenario } from "./schema/index.js";
import { isMapping } from "./schema/index.js";

/** Resolves a bare (`x`) or section-qualified (`section.x`) ref to a declared name. */
export function sectionRefName(
  ref: string,
  section: string,
  declared: Readonly<Record<string, unknown>>,
): string | undefined {
  if (Object.hasOwn(declared, ref)) return ref;
  const prefix = `${section}.`;
  if (!ref.startsWith(prefix)) return undefined;
  const name = ref.slice(prefix.length);
  return Object.hasOwn(declared, name) ? name : undefined;
}

/** An authored ref that resolves to a provisioned thing. */
export type AddressableRef =
  | { readonly kind: "node"; readonly node: string }
  | { readonly kind: "service"; readonly node: string; readonly service: string }
  | { readonly kind: "content"; readonly content: string };

/** Resolves `nodes.X`, `nodes.X.services.S` and `content.C` against what the scenario declares. */
export function resolveAddressableRef(scenario: Scenario, ref: string): AddressableRef | undefined {
  const parts = ref.split(".");
  const [section, name, sub, leaf] = parts;
  if (section === "nodes" && name !== undefined && Object.hasOwn(scenario.nodes, name)) {
    if (parts.length === 2) return { kind: "node", node: name };
    const node = scenario.nodes[name];
    if (parts.length === 4 && sub === "services" && leaf !== undefined) {
      return node?.services.some((entry) => entry.name === leaf)
        ? { kind: "service", node: name, service: leaf }
        : undefined;
    }
    return undefined;
  }
  if (
    section === "content" &&
    parts.length === 2 &&
    name !== undefined &&
    Object.hasOwn(scenario.content, name)
  ) {
    return { kind: "content", content: name };
  }
  return undefined;
}

/** True when a ref has the form of an addressable ref, whether or not it resolves. */
export function looksAddressable(ref: string): boolean {
  return /^(nodes\.[^.]+(\.services\.[^.]+)?|content\.[^.]+)$/.test(ref);
}

/** Flattens nested entities into `parent.child` names. */
export function flattenEntities(
  entities: Readonly<Record<string, Entity>>,
  prefix = "",
): Map<string, Entity> {
  const out = new Map<string, Entity>();
  for (const [key, entity] of Object.entries(entities)) {
    const name = prefix === "" ? key : `${prefix}.${key}`;
    out.set(name, entity);
    for (const [child, nested] of flattenEntities(entity.entities, name)) out.set(child, nested);
  }
  return out;
}

/** Lookups the semantic checks and the compiler share. */
export class ScenarioIndex {
  readonly entities: Map<string, Entity>;
  /** Role of each agent whose entity declares one. */
  readonly rolesByAgent = new Map<string, string>();
  /** Every role some agent has. */
  readonly roles = new Set<string>();
  readonly actionsByAgent = new Map<string, Set<string>>();
  readonly boundariesByAgent = new Map<string, Set<string>>();
  private readonly agentsByRole = new Map<string, string[]>();

  constructor(readonly scenario: Scenario) {
    this.entities = flattenEntities(scenario.entities);
    for (const [name, agent] of Object.entries(scenario.agents)) {
      const role = this.entities.get(agent.entity)?.role;
      if (typeof role === "string") {
        this.rolesByAgent.set(name, role);
        this.roles.add(role);
        const members = this.agentsByRole.get(role) ?? [];
        members.push(name);
        this.agentsByRole.set(role, members);
      }
      this.actionsByAgent.set(name, new Set(agent.actions));
      this.boundariesByAgent.set(name, new Set(agent.observation_boundaries));
    }
  }

  /** Declared agents among the specification's `participant_refs`, in authored order. */
  explicitParticipants(spec: BehaviorSpecification): string[] {
    return spec.participant_refs.filter((ref) => Object.hasOwn(this.scenario.agents, ref));
  }

  /** The specification's participants: `participant_refs`, then the agents whose role it names (sorted). */
  specificationParticipants(spec: BehaviorSpecification): string[] {
    const out = this.explicitParticipants(spec);
    const seen = new Set(out);
    const byRole = new Set<string>();
    for (const role of spec.participant_role_refs) {
      for (const agent of this.agentsByRole.get(role) ?? []) if (!seen.has(agent)) byRole.add(agent);
    }
    // Concatenated, not spread into push: a scenario may name tens of thousands of agents.
    return out.concat([...byRole].sort());
  }

  /** Names declared by a top-level section, interpreted or kept as authored. */
  sectionNames(section: string): readonly string[] {
    const value = (this.scenario as unknown as Record<string, unknown>)[section];
    return isMapping(value) ? Object.keys(value) : [];
  }

  /** Addresses (`section.name`) a bare or qualified ref names, across every named section, as RAES's declaration index resolves it. */
  declarationsNamed(ref: string): string[] {
    const out = new Set<string>();
    for (const section of DECLARING_SECTIONS) {
      if (this.declares(section, ref)) out.add(`${section}.${ref}`);
      if (ref.startsWith(`${section}.`) && this.declares(section, ref.slice(section.length + 1)))
        out.add(ref);
    }
    if (this.entities.has(ref)) out.add(`entities.${ref}`);
    if (ref.startsWith("entities.") && this.entities.has(ref.slice("entities.".length))) out.add(ref);
    return [...out].sort();
  }

  /** True when a section (interpreted or kept) declares `name`. */
  declares(section: string, name: string): boolean {
    const value = (this.scenario as unknown as Record<string, unknown>)[section];
    return isMapping(value) && Object.hasOwn(value, name);
  }
}

/** Top-level sections whose keys are declarations (RAES's hash-map sections, less entities and variables). */
const DECLARING_SECTIONS = [
  "nodes",
  "features",
  "conditions",
  "propositions",
  "assertions",
  "vulnerabilities",
  "injects",
  "events",
  "scripts",
  "stories",
  "content",
  "generated_artifacts",
  "persistent_volumes",
  "accounts",
  "identity_domains",
  "identity_forests",
  "identity_facades",
  "deployment_tenants",
  "deployment_cells",
  "relationships",
  "agents",
  "action_contracts",
  "observation_boundaries",
  "outcome_interpretation_rules",
  "behavior_specifications",
  "evidence_requirements",
  "time_domains",
  "clocks",
  "time_domain_mappings",
  "time_progression_policies",
  "temporal_constraints",
  "objectives",
  "workflows",
  "variation_points",
] as const;

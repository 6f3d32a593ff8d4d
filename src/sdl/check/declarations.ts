import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { isMapping, type Scenario } from "../schema/index.js";

/** Top-level sections whose declarations RAES's refs may name (its `_REFERENCEABLE_SECTIONS`). */
const REFERENCEABLE_SECTIONS = [
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
  "agents",
  "action_contracts",
  "observation_boundaries",
  "behavior_specifications",
  "evidence_requirements",
  "time_domains",
  "clocks",
  "time_domain_mappings",
  "time_progression_policies",
  "temporal_constraints",
  "objectives",
  "variation_points",
] as const;

/** Referenceable sections a targetable ref may not name (RAES's `NON_TARGETABLE_REFERENCE_SECTIONS`). */
const NON_TARGETABLE = new Set([
  "variables",
  "evidence_requirements",
  "time_domains",
  "clocks",
  "time_domain_mappings",
  "time_progression_policies",
  "temporal_constraints",
  "objectives",
  "workflows",
]);

function keysOf(value: unknown): string[] {
  return isMapping(value) ? Object.keys(value) : [];
}

function section(scenario: Scenario, name: string): unknown {
  return (scenario as unknown as Record<string, unknown>)[name];
}

/**
 * RAES's declaration index, as its reference validation reads it (`reference_aliases`): every ref
 * spelling (a canonical address `section.name`, or an alias such as a bare name) mapped to the
 * canonical addresses of the declarations it may name. A ref that maps to two addresses is ambiguous.
 *
 * Not indexed (raes-ts keeps these sections uninterpreted): node runtime service families and the
 * members of variation points.
 */
export class DeclarationAliases {
  private readonly named = new Map<string, Set<string>>();
  private readonly targetable = new Map<string, Set<string>>();
  private readonly scope = new Map<string, Set<string>>();

  constructor(scenario: Scenario) {
    for (const name of REFERENCEABLE_SECTIONS) {
      const targetable = !NON_TARGETABLE.has(name);
      for (const key of keysOf(section(scenario, name))) {
        this.add(`${name}.${key}`, [key], targetable);
      }
    }
    for (const [spec, declared] of Object.entries(scenario.behavior_specifications)) {
      for (const id of Object.keys(declared.tool_affordances)) {
        this.add(`behavior_specifications.${spec}.tool_affordances.${id}`, [], false);
      }
      for (const id of keysOf(declared.participant_inject_deliveries)) {
        this.add(`behavior_specifications.${spec}.participant_inject_deliveries.${id}`, [], true);
      }
    }
    for (const key of keysOf(section(scenario, "variables"))) this.add(`variables.${key}`, [key], false);
    for (const [name, node] of Object.entries(scenario.nodes)) {
      this.add(`nodes.${name}`, [name], true);
      for (const service of node.services) {
        if (service.name !== "") this.add(`nodes.${name}.services.${service.name}`, [], true);
      }
    }
    for (const [name, infrastructure] of Object.entries(mappingOf(section(scenario, "infrastructure")))) {
      this.add(`infrastructure.${name}`, [], true);
      const acls = isMapping(infrastructure) ? infrastructure.acls : undefined;
      if (Array.isArray(acls)) {
        for (const acl of acls) {
          const aclName = isMapping(acl) ? acl.name : undefined;
          if (typeof aclName === "string" && aclName !== "") {
            this.add(`infrastructure.${name}.acls.${aclName}`, [], true);
          }
        }
      }
    }
    this.addEntities(scenario.entities, "");
    for (const [name, content] of Object.entries(scenario.content)) {
      this.add(`content.${name}`, [name], true);
      for (const item of content.items) this.add(`content.${name}.items.${item.name}`, [item.name], true);
    }
    for (const name of keysOf(section(scenario, "workflows"))) this.add(`workflows.${name}`, [name], false);
    const forwarding = section(scenario, "forwarding_agents");
    if (Array.isArray(forwarding)) {
      for (const agent of forwarding) {
        const id = isMapping(agent) ? agent.forwarding_agent_id : undefined;
        if (typeof id === "string" && id !== "") this.add(`forwarding_agents.${id}`, [], true);
      }
    }
    this.addOperatingScope(scenario);
  }

  /** The addresses a ref may name among every referenceable declaration. */
  namedBy(ref: string): ReadonlySet<string> {
    return this.named.get(ref) ?? EMPTY;
  }

  /** The addresses a ref may name among targetable declarations. */
  targetableBy(ref: string): ReadonlySet<string> {
    return this.targetable.get(ref) ?? EMPTY;
  }

  /** The addresses an agent's `operating_scope` ref may name: VM nodes, switches, services, content and content items. */
  scopeBy(ref: string): ReadonlySet<string> {
    return this.scope.get(ref) ?? EMPTY;
  }

  private addEntities(entities: Scenario["entities"], prefix: string): void {
    for (const [key, entity] of Object.entries(entities)) {
      const name = prefix === "" ? key : `${prefix}.${key}`;
      this.add(`entities.${name}`, [name], true);
      this.addEntities(entity.entities, name);
    }
  }

  /** RAES's `_operating_scope_ref_index`. */
  private addOperatingScope(scenario: Scenario): void {
    const put = (alias: string, address: string) => addTo(this.scope, alias, address);
    for (const [name, node] of Object.entries(scenario.nodes)) {
      if (node.type !== "vm") continue;
      put(name, `nodes.${name}`);
      put(`nodes.${name}`, `nodes.${name}`);
    }
    for (const name of keysOf(section(scenario, "infrastructure"))) {
      if (!Object.hasOwn(scenario.nodes, name) || scenario.nodes[name]?.type !== "switch") continue;
      put(name, `infrastructure.${name}`);
      put(`infrastructure.${name}`, `infrastructure.${name}`);
    }
    for (const [name, node] of Object.entries(scenario.nodes)) {
      for (const service of node.services) {
        if (service.name === "") continue;
        const address = `nodes.${name}.services.${service.name}`;
        put(address, address);
        put(service.name, address);
      }
    }
    for (const [name, content] of Object.entries(scenario.content)) {
      put(name, `content.${name}`);
      put(`content.${name}`, `content.${name}`);
      for (const item of content.items) {
        if (item.name === "") continue;
        const address = `content.${name}.items.${item.name}`;
        put(item.name, address);
        put(address, address);
      }
    }
  }

  private add(address: string, aliases: readonly string[], targetable: boolean): void {
    for (const alias of [address, ...aliases]) {
      if (alias === "") continue;
      addTo(this.named, alias, address);
      if (targetable) addTo(this.targetable, alias, address);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function mappingOf(value: unknown): Readonly<Record<string, unknown>> {
  return isMapping(value) ? value : {};
}

function addTo(map: Map<string, Set<string>>, alias: string, address: string): void {
  const set = map.get(alias) ?? new Set<string>();
  set.add(address);
  map.set(alias, set);
}

/**
 * Reports a ref that names nothing, or more than one declaration, as RAES's `_validate_named_ref` does.
 * RAES renders these in prose without a code; raes-ts uses `sdl.ref.unbound` for both, as for an agent's
 * anchors and scope.
 */
export function checkNamedRef(
  candidates: ReadonlySet<string>,
  ref: string,
  what: string,
  path: string,
  report: (finding: Finding) => void,
): void {
  if (candidates.size === 1) return;
  const message =
    candidates.size === 0
      ? `${what} '${ref}' names nothing declared`
      : `${what} '${ref}' is ambiguous; use one of: ${[...candidates].sort().join(", ")}`;
  report({ code: DiagnosticCode.refUnbound, message, path });
}

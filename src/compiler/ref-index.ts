import type { Scenario } from "../sdl/index.js";
import { Addresses } from "./addresses.js";

function mappingKeys(value: unknown): string[] {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? Object.keys(value) : [];
}

/**
 * Every authored ref that names something with a runtime address, mapped to the addresses it may mean;
 * RAES's runtime-addressable ref index (docs/raes-mapping.md, "The ref index").
 *
 * A ref is the bare name or the section-qualified name of: a node (`provision.node.<n>`, or
 * `provision.network.<n>` for a switch, also as `infrastructure.<n>`), a node's named service, a content
 * entry and its named items, an account, a condition, feature or vulnerability template, an action
 * contract, an observation boundary, an outcome interpretation rule or a behavior specification. A ref
 * resolves only when it names exactly one address: a bare name two sections share resolves to nothing.
 * Entities and relationships are meaning only and have no address, so an anchor naming one resolves to
 * nothing, as in RAES.
 *
 * @example
 * const index = new RefIndex(scenario);
 * index.addresses(["nodes.web", "accounts.admin", "entities.blue"]);
 * // ["provision.node.web", "provision.account.admin"]
 */
export class RefIndex {
  private readonly aliases = new Map<string, Set<string>>();

  constructor(readonly scenario: Scenario) {
    this.addNodes();
    this.addInfrastructure();
    this.addContent();
    this.addSection(mappingKeys(scenario.accounts), "accounts", Addresses.account);
    this.addSection(mappingKeys(scenario.conditions), "conditions", (name) =>
      Addresses.template("condition", name),
    );
    this.addSection(mappingKeys(scenario.features), "features", (name) =>
      Addresses.template("feature", name),
    );
    this.addSection(mappingKeys(scenario.vulnerabilities), "vulnerabilities", (name) =>
      Addresses.template("vulnerability", name),
    );
    this.addSection(Object.keys(scenario.action_contracts), "action_contracts", Addresses.actionContract);
    this.addSection(
      Object.keys(scenario.observation_boundaries),
      "observation_boundaries",
      Addresses.observationBoundary,
    );
    this.addSection(
      mappingKeys(scenario.outcome_interpretation_rules),
      "outcome_interpretation_rules",
      Addresses.outcomeRule,
    );
    this.addSection(
      Object.keys(scenario.behavior_specifications),
      "behavior_specifications",
      Addresses.behaviorSpecification,
    );
  }

  /** The one address `ref` names, or undefined when it names none or several. */
  resolve(ref: string): string | undefined {
    const matches = this.aliases.get(ref);
    if (matches === undefined || matches.size !== 1) return undefined;
    const [only] = matches;
    return only;
  }

  /** The addresses of the refs that resolve, in first-seen order, without repeats. */
  addresses(refs: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const ref of refs) {
      const resolved = this.resolve(ref);
      if (resolved !== undefined) out.add(resolved);
    }
    return [...out];
  }

  /** `provision.account.<a>` for each ref that is exactly a declared account's name (RAES's starting accounts and known accounts). */
  accountAddresses(refs: Iterable<string>): string[] {
    const declared = new Set(mappingKeys(this.scenario.accounts));
    const out = new Set<string>();
    for (const ref of refs) {
      if (declared.has(ref)) out.add(safe(() => Addresses.account(ref)));
    }
    out.delete("");
    return [...out];
  }

  /**
   * The services the refs name, distinct: `nodes.N.services.S` names one declared service, and a bare
   * name names that service on every node that declares it (RAES's known services).
   */
  serviceAddresses(refs: Iterable<string>): string[] {
    const out = new Set<string>();
    for (const ref of new Set(refs)) {
      const qualified = ref.match(/^nodes\.([^.]+)\.services\.([^.]+)$/);
      const node = qualified?.[1];
      const service = qualified?.[2];
      if (node !== undefined && service !== undefined && Object.hasOwn(this.scenario.nodes, node)) {
        if (this.scenario.nodes[node]?.services.some((entry) => entry.name === service)) {
          out.add(safe(() => Addresses.service(node, service)));
        }
        continue;
      }
      for (const [name, declared] of Object.entries(this.scenario.nodes)) {
        if (declared.services.some((entry) => entry.name === ref)) {
          out.add(safe(() => Addresses.service(name, ref)));
        }
      }
    }
    out.delete("");
    return [...out];
  }

  /** The node's address: `provision.network.<n>` for a switch, else `provision.node.<n>`. */
  nodeAddress(node: string): string {
    return this.scenario.nodes[node]?.type === "switch" ? Addresses.network(node) : Addresses.node(node);
  }

  private add(alias: string, address: string): void {
    // A declared name outside the address grammar has no address (RAES refuses to render one).
    if (alias === "" || address === "") return;
    let matches = this.aliases.get(alias);
    if (matches === undefined) {
      matches = new Set();
      this.aliases.set(alias, matches);
    }
    matches.add(address);
  }

  private addNodes(): void {
    for (const [name, node] of Object.entries(this.scenario.nodes)) {
      const address = safe(() => this.nodeAddress(name));
      this.add(name, address);
      this.add(`nodes.${name}`, address);
      if (node.type === "switch") this.add(`infrastructure.${name}`, address);
      for (const service of node.services) {
        if (service.name === "") continue;
        const serviceAddress = safe(() => Addresses.service(name, service.name));
        this.add(service.name, serviceAddress);
        this.add(`nodes.${name}.services.${service.name}`, serviceAddress);
      }
    }
  }

  private addInfrastructure(): void {
    for (const name of mappingKeys(this.scenario.infrastructure)) {
      const node = this.scenario.nodes[name];
      if (node === undefined || !Object.hasOwn(this.scenario.nodes, name)) continue;
      const address = safe(() => this.nodeAddress(name));
      this.add(`infrastructure.${name}`, address);
      if (node.type === "switch") this.add(name, address);
    }
  }

  private addContent(): void {
    for (const [name, content] of Object.entries(this.scenario.content)) {
      const address = safe(() => Addresses.content(name));
      this.add(name, address);
      this.add(`content.${name}`, address);
      for (const item of content.items) {
        if (item.name === "") continue;
        const itemAddress = safe(() => Addresses.contentItem(name, item.name));
        this.add(item.name, itemAddress);
        this.add(`content.${name}.items.${item.name}`, itemAddress);
      }
    }
  }

  private addSection(names: readonly string[], section: string, build: (name: string) => string): void {
    for (const name of names) {
      const address = safe(() => build(name));
      this.add(name, address);
      this.add(`${section}.${name}`, address);
    }
  }
}

/** Builds an address, or `""` (no address) when a declared name is outside the segment grammar. */
function safe(build: () => string): string {
  try {
    return build();
  } catch {
    return "";
  }
}

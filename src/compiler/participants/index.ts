import type { Agent, ScenarioIndex } from "../../sdl/index.js";
import { sectionRefName } from "../../sdl/index.js";
import { Addresses, isAddress } from "../addresses.js";
import { byAddress, compareText } from "../records.js";
import type { RefIndex } from "../ref-index.js";
import type { CompiledInteractiveAccess, CompiledParticipant } from "./model.js";

export type { CompiledInteractiveAccess, CompiledParticipant } from "./model.js";

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

/** Compiles every agent into its participant record, resolving its authored refs through the ref index. */
export function compileParticipants(
  index: ScenarioIndex,
  refs: RefIndex,
): Record<string, CompiledParticipant> {
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
      const actionContractAddresses = [...new Set(actions)].map(actionAddress);
      const observationBoundaryAddresses = [...new Set(boundaries)].map(boundaryAddress);
      const startingAccountAddresses = refs.accountAddresses(agent.starting_accounts);
      const initialKnowledgeAddresses = knowledgeAddresses(agent, refs);
      const startingAssertionAddresses = agent.starting_assertions.map(Addresses.assertion).filter(isAddress);
      const authorityAnchorAddresses = refs.addresses(agent.authority_anchors);
      const operatingScopeAddresses = refs.addresses(agent.operating_scope);
      const interactiveAccess = compileInteractiveAccess(agent, refs);
      const compiled: CompiledParticipant = {
        address: Addresses.participant(name),
        agent: name,
        ...(index.entities.has(agent.entity) ? { entity: agent.entity } : {}),
        ...(role === undefined ? {} : { role }),
        actionContractAddresses,
        observationBoundaryAddresses,
        name,
        participantName: name,
        entityName: agent.entity,
        startingAccountRefs: [...agent.starting_accounts],
        startingAccountAddresses,
        initialKnowledgeAddresses,
        startingAssertionRefs: [...agent.starting_assertions],
        startingAssertionAddresses,
        authorityAnchorRefs: [...agent.authority_anchors],
        authorityAnchorAddresses,
        operatingScopeRefs: [...agent.operating_scope],
        operatingScopeAddresses,
        interactiveAccess,
        interpretationMode: "role-neutral-projection",
        orderingDependencies: [],
        refreshDependencies: [
          ...new Set([
            ...actionContractAddresses,
            ...observationBoundaryAddresses,
            ...startingAccountAddresses,
            ...initialKnowledgeAddresses,
            ...startingAssertionAddresses,
            ...authorityAnchorAddresses,
            ...operatingScopeAddresses,
            ...interactiveAccess.flatMap((access) =>
              [access.targetAddress, access.accountAddress].filter((address) => address !== ""),
            ),
          ]),
        ],
      };
      return compiled;
    }),
  );
}

/**
 * RAES's initial-knowledge addresses: declared hosts, subnets that are declared infrastructure nodes,
 * services (`nodes.N.services.S`, or every node's service of that bare name) and declared accounts.
 */
function knowledgeAddresses(agent: Agent, refs: RefIndex): string[] {
  const knowledge = agent.initial_knowledge;
  if (knowledge === undefined) return [];
  const { scenario } = refs;
  const infrastructure = scenario.infrastructure;
  const isInfrastructure = (name: string) =>
    infrastructure !== null &&
    typeof infrastructure === "object" &&
    !Array.isArray(infrastructure) &&
    Object.hasOwn(infrastructure, name);
  const declaredNode = (name: string) => Object.hasOwn(scenario.nodes, name);
  return [
    ...new Set([
      ...knowledge.hosts.filter(declaredNode).map((host) => refs.nodeAddress(host)),
      ...knowledge.subnets
        .filter((subnet) => isInfrastructure(subnet) && declaredNode(subnet))
        .map((subnet) => refs.nodeAddress(subnet)),
      ...refs.serviceAddresses(knowledge.services),
      ...refs.accountAddresses(knowledge.accounts),
    ]),
  ];
}

function compileInteractiveAccess(agent: Agent, refs: RefIndex): CompiledInteractiveAccess[] {
  return Object.entries(agent.interactive_access)
    .sort(([a], [b]) => compareText(a, b))
    .map(([accessId, access]) => {
      const accountRef = access.account_ref ?? "";
      return {
        accessId,
        targetRef: access.target_ref,
        targetAddress: refs.resolve(access.target_ref) ?? "",
        channel: access.channel,
        accountRef,
        accountAddress: accountRef === "" ? "" : (refs.resolve(accountRef) ?? ""),
      };
    });
}

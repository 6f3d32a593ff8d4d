import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import { looksAddressable, resolveAddressableRef, type ScenarioIndex } from "../refs.js";
import type { Agent } from "../schema/index.js";
import { checkNamedRef, type DeclarationAliases } from "./declarations.js";

type Report = (finding: Finding) => void;

/** Checks agents' entity, action and boundary refs, and their scope refs. */
export function checkAgents(index: ScenarioIndex, aliases: DeclarationAliases, report: Report): void {
  const { scenario } = index;
  const contractsDeclared = Object.keys(scenario.action_contracts).length > 0;
  for (const [name, agent] of Object.entries(scenario.agents)) {
    const at = joinPointer("/agents", name);
    if (!index.entities.has(agent.entity)) {
      report({
        code: DiagnosticCode.agentEntityUnbound,
        message: `agent '${name}' names undeclared entity '${agent.entity}'`,
        path: joinPointer(at, "entity"),
      });
    }
    agent.actions.forEach((action, i) => {
      if (contractsDeclared && !Object.hasOwn(scenario.action_contracts, action)) {
        report({
          code: DiagnosticCode.actionContractUnbound,
          message: `agent '${name}' action '${action}' names no declared action contract`,
          path: joinPointer(at, "actions", i),
        });
      }
    });
    agent.observation_boundaries.forEach((boundary, i) => {
      if (!Object.hasOwn(scenario.observation_boundaries, boundary)) {
        report({
          code: DiagnosticCode.observationBoundaryUnbound,
          message: `agent '${name}' names undeclared observation boundary '${boundary}'`,
          path: joinPointer(at, "observation_boundaries", i),
        });
      }
    });
    checkAgentKnowledge(index, name, agent, at, report);
    // As RAES: a scope ref names one VM node, switch, service, content entry or content item; an
    // anchor names one referenceable declaration.
    agent.authority_anchors.forEach((ref, i) => {
      const path = joinPointer(at, "authority_anchors", i);
      checkNamedRef(aliases.namedBy(ref), ref, `agent '${name}' authority_anchor`, path, report);
    });
    agent.operating_scope.forEach((ref, i) => {
      const path = joinPointer(at, "operating_scope", i);
      checkNamedRef(aliases.scopeBy(ref), ref, `agent '${name}' operating_scope`, path, report);
    });
  }
}

/** As RAES: initial-knowledge hosts are VM nodes, subnets (and allowed subnets) are switches in `infrastructure`, services are node service names, accounts are declared. */
function checkAgentKnowledge(
  index: ScenarioIndex,
  name: string,
  agent: Agent,
  at: string,
  report: Report,
): void {
  const { nodes } = index.scenario;
  const nodeType = (ref: string) => (Object.hasOwn(nodes, ref) ? nodes[ref]?.type : undefined);
  const isSubnet = (ref: string) => index.declares("infrastructure", ref) && nodeType(ref) === "switch";
  const services = new Set(
    Object.values(nodes).flatMap((node) => node.services.map((service) => service.name)),
  );
  const knowledge = agent.initial_knowledge;
  const checks: [field: string, refs: readonly string[], ok: (ref: string) => boolean, what: string][] = [
    ["initial_knowledge/hosts", knowledge?.hosts ?? [], (ref) => nodeType(ref) === "vm", "VM node"],
    ["initial_knowledge/subnets", knowledge?.subnets ?? [], isSubnet, "switch in infrastructure"],
    ["initial_knowledge/services", knowledge?.services ?? [], (ref) => services.has(ref), "node service"],
    [
      "initial_knowledge/accounts",
      knowledge?.accounts ?? [],
      (ref) => index.declares("accounts", ref),
      "account",
    ],
  ];
  for (const [field, refs, ok, what] of checks) {
    refs.forEach((ref, i) => {
      if (ok(ref)) return;
      report({
        code: DiagnosticCode.agentInitialKnowledgeUnbound,
        message: `agent '${name}' ${field.replace("/", " ")} '${ref}' names no declared ${what}`,
        path: joinPointer(at, ...field.split("/"), i),
      });
    });
  }
  agent.allowed_subnets.forEach((ref, i) => {
    if (isSubnet(ref)) return;
    report({
      code: DiagnosticCode.agentAllowedSubnetUnbound,
      message: `agent '${name}' allowed_subnet '${ref}' names no switch in infrastructure`,
      path: joinPointer(at, "allowed_subnets", i),
    });
  });
  agent.starting_accounts.forEach((ref, i) => {
    if (index.declares("accounts", ref)) return;
    report({
      code: DiagnosticCode.refUnbound,
      message: `agent '${name}' starting_account '${ref}' names no declared account`,
      path: joinPointer(at, "starting_accounts", i),
    });
  });
}

/** True when a ref names a declaration: `section.name`, a service or content item path, or an unambiguous bare name. */
export function resolvesNamed(index: ScenarioIndex, ref: string): boolean {
  if (resolveAddressableRef(index.scenario, ref) !== undefined) return true;
  const dot = ref.indexOf(".");
  if (dot > 0 && index.declares(ref.slice(0, dot), ref.slice(dot + 1))) return true;
  if (index.entities.has(ref)) return true;
  return SECTIONS_FOR_BARE_NAMES.some((section) => index.declares(section, ref));
}

const SECTIONS_FOR_BARE_NAMES = [
  "nodes",
  "infrastructure",
  "content",
  "agents",
  "accounts",
  "relationships",
  "conditions",
  "features",
  "vulnerabilities",
  "objectives",
  "workflows",
  "propositions",
  "assertions",
  "action_contracts",
  "observation_boundaries",
  "behavior_specifications",
  "evidence_requirements",
];

/** Checks content targets, action-contract targets and interactions. */
export function checkContentAndActions(index: ScenarioIndex, report: Report): void {
  const { scenario } = index;
  for (const [name, content] of Object.entries(scenario.content)) {
    if (content.target !== "" && scenario.nodes[content.target]?.type !== "vm") {
      report({
        code: DiagnosticCode.refUnbound,
        message: `content '${name}' target '${content.target}' names no declared VM node`,
        path: joinPointer("/content", name, "target"),
      });
    }
  }
  for (const [name, contract] of Object.entries(scenario.action_contracts)) {
    const at = joinPointer("/action_contracts", name);
    const checkTarget = (ref: string, path: string) => {
      if (looksAddressable(ref) && resolveAddressableRef(scenario, ref) === undefined) {
        report({
          code: DiagnosticCode.actionTargetUnaddressable,
          severity: "warning",
          message: `'${ref}' names nothing declared, so it adds no target address to '${name}'`,
          path,
        });
      }
    };
    contract.effects.forEach((effect, i) => {
      effect.target_refs.forEach((ref, j) => {
        checkTarget(ref, joinPointer(at, "effects", i, "target_refs", j));
      });
    });
    contract.preconditions.forEach((pre, i) => {
      pre.support_refs.forEach((ref, j) => {
        checkTarget(ref, joinPointer(at, "preconditions", i, "support_refs", j));
      });
    });
    contract.interactions.forEach((interaction, i) => {
      const named: [string, string][] = [
        [interaction.target, joinPointer(at, "interactions", i, "target")],
        ...interaction.shared_state_refs.map((ref, j): [string, string] => [
          ref,
          joinPointer(at, "interactions", i, "shared_state_refs", j),
        ]),
      ];
      for (const [ref, path] of named) {
        if (resolvesNamed(index, ref)) continue;
        report({
          code: DiagnosticCode.refUnbound,
          message: `interaction ref '${ref}' names nothing declared`,
          path,
        });
      }
      interaction.related_actions.forEach((related, j) => {
        if (!Object.hasOwn(scenario.action_contracts, related)) {
          report({
            code: DiagnosticCode.interactionActionUnbound,
            message: `interaction of '${name}' names undeclared action contract '${related}'`,
            path: joinPointer(at, "interactions", i, "related_actions", j),
          });
        }
      });
    });
  }
}

/** Checks that view rules and transitions only classify what their boundary declares. */
export function checkBoundaries(index: ScenarioIndex, report: Report): void {
  for (const [name, boundary] of Object.entries(index.scenario.observation_boundaries)) {
    const at = joinPointer("/observation_boundaries", name);
    const declared = new Set([
      ...boundary.observable_refs,
      ...boundary.hidden_refs,
      ...boundary.evidence_refs,
    ]);
    const evidence = new Set(boundary.evidence_refs);
    const check = (ref: string, pool: Set<string>, code: Finding["code"], path: string, what: string) => {
      if (!pool.has(ref))
        report({ code, message: `${what} '${ref}' is not declared by boundary '${name}'`, path });
    };
    boundary.view_rules.forEach((rule, i) => {
      const ruleAt = joinPointer(at, "view_rules", i);
      check(
        rule.information_ref,
        declared,
        DiagnosticCode.viewRuleRefUnbound,
        `${ruleAt}/information_ref`,
        "ref",
      );
      rule.evidence_refs.forEach((ref, j) => {
        const path = joinPointer(ruleAt, "evidence_refs", j);
        check(ref, evidence, DiagnosticCode.viewRuleEvidenceUnbound, path, "evidence");
      });
    });
    boundary.view_transitions.forEach((transition, i) => {
      const tAt = joinPointer(at, "view_transitions", i);
      const code = DiagnosticCode.viewTransitionRefUnbound;
      check(transition.information_ref, declared, code, `${tAt}/information_ref`, "ref");
      transition.evidence_refs.forEach((ref, j) => {
        const path = joinPointer(tAt, "evidence_refs", j);
        check(ref, evidence, DiagnosticCode.viewTransitionEvidenceUnbound, path, "evidence");
      });
    });
  }
}

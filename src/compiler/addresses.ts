import { isAddressSegment } from "../records/index.js";
import type { Scenario } from "../sdl/index.js";
import { resolveAddressableRef } from "../sdl/index.js";

export { isAddress, isAddressSegment } from "../records/index.js";

/** Joins segments into an address; throws on a segment outside the grammar, which validated input never has. */
export function address(...segments: readonly string[]): string {
  for (const segment of segments) {
    if (!isAddressSegment(segment)) throw new Error(`'${segment}' is not a valid address segment`);
  }
  return segments.join(".");
}

/** Builders for every compiled address kind (docs/design.md §2). */
export const Addresses = {
  /** `participant.behavior.<agent>` */
  participant: (agent: string) => address("participant", "behavior", agent),
  /** `participant.action-contract.<name>` */
  actionContract: (name: string) => address("participant", "action-contract", name),
  /** `participant.observation-boundary.<name>` */
  observationBoundary: (name: string) => address("participant", "observation-boundary", name),
  /** `participant.behavior-specification.<spec>` */
  behaviorSpecification: (spec: string) => address("participant", "behavior-specification", spec),
  /** `participant.behavior-specification.<spec>.tool-affordance.<id>` */
  toolAffordance: (spec: string, id: string) =>
    address("participant", "behavior-specification", spec, "tool-affordance", id),
  /** `participant.behavior-specification.<spec>.inject-delivery.<id>` */
  injectDelivery: (spec: string, id: string) =>
    address("participant", "behavior-specification", spec, "inject-delivery", id),
  /** `participant.outcome-interpretation-rule.<name>` */
  outcomeRule: (name: string) => address("participant", "outcome-interpretation-rule", name),
  /** `participant.autonomous-execution.<spec>`, also the execution scope ref. */
  autonomousPolicy: (spec: string) => address("participant", "autonomous-execution", spec),
  /** `<policy address>.binding.<action name>` */
  executionBinding: (policyAddress: string, action: string) =>
    `${policyAddress}.${address("binding", action)}`,
  /** `provision.node.<n>` */
  node: (node: string) => address("provision", "node", node),
  /** `provision.node.<n>.service.<s>` */
  service: (node: string, service: string) => address("provision", "node", node, "service", service),
  /** `provision.network.<n>`: a switch node. */
  network: (node: string) => address("provision", "network", node),
  /** `provision.content.<c>` */
  content: (content: string) => address("provision", "content", content),
  /** `provision.content.<c>.items.<i>` */
  contentItem: (content: string, item: string) => address("provision", "content", content, "items", item),
  /** `provision.account.<a>` */
  account: (account: string) => address("provision", "account", account),
  /** `template.<kind>.<name>`: a condition, feature or vulnerability. */
  template: (kind: "condition" | "feature" | "vulnerability", name: string) =>
    address("template", kind, name),
  /** `evaluation.assertion.<ref>`, the ref as authored (RAES's starting assertions). */
  assertion: (ref: string) => `evaluation.assertion.${ref}`,
  /** `participant.behavior-specification.<spec>.controller-state.<id>` */
  controllerState: (spec: string, id: string) =>
    address("participant", "behavior-specification", spec, "controller-state", id),
  /** `participant.behavior-specification.<spec>.control-transition.<id>` */
  controlTransition: (spec: string, id: string) =>
    address("participant", "behavior-specification", spec, "control-transition", id),
  /** `time.domain.<d>` */
  timeDomain: (domain: string) => address("time", "domain", domain),
  /** `evaluation.objective.<o>` */
  objective: (objective: string) => address("evaluation", "objective", objective),
  /** `time.clock.<c>` */
  clock: (clock: string) => address("time", "clock", clock),
  /** `time.policy.<p>` */
  progressionPolicy: (policy: string) => address("time", "policy", policy),
  /** `time.constraint.<k>` */
  temporalConstraint: (constraint: string) => address("time", "constraint", constraint),
} as const;

/** Resolves an authored `nodes.X`, `nodes.X.services.S` or `content.C` ref to its address; anything else resolves to nothing. */
export function resolveRefAddress(scenario: Scenario, ref: string): string | undefined {
  const resolved = resolveAddressableRef(scenario, ref);
  if (resolved === undefined) return undefined;
  if (resolved.kind === "node") return Addresses.node(resolved.node);
  if (resolved.kind === "service") return Addresses.service(resolved.node, resolved.service);
  return Addresses.content(resolved.content);
}

/** Resolves refs to addresses, dropping the unaddressable ones and repeats, in first-seen order. */
export function resolveRefAddresses(scenario: Scenario, refs: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const ref of refs) {
    const resolved = resolveRefAddress(scenario, ref);
    if (resolved !== undefined) out.add(resolved);
  }
  return [...out];
}

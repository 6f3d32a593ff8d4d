import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { ScenarioIndex } from "../refs.js";
import type { BehaviorSpecification } from "../schema/index.js";
import { checkNamedRef, type DeclarationAliases } from "./declarations.js";

type Report = (finding: Finding) => void;
type MixedControl = NonNullable<BehaviorSpecification["mixed_control"]>;
type ControllerState = MixedControl["controller_states"][string];
type Transition = MixedControl["transitions"][string];

function union(refs: readonly string[], lookup: (ref: string) => ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const ref of refs) for (const address of lookup(ref)) out.add(address);
  return out;
}

function within(inner: ReadonlySet<string>, outer: ReadonlySet<string>): boolean {
  for (const address of inner) if (!outer.has(address)) return false;
  return true;
}

/** Checks each behavior specification's `authority_scope_refs`: each names exactly one targetable declaration (RAES). */
export function checkAuthorityScopeRefs(
  index: ScenarioIndex,
  aliases: DeclarationAliases,
  report: Report,
): void {
  for (const [name, spec] of Object.entries(index.scenario.behavior_specifications)) {
    spec.authority_scope_refs.forEach((ref, i) => {
      const path = joinPointer("/behavior_specifications", name, "authority_scope_refs", i);
      checkNamedRef(aliases.targetableBy(ref), ref, "authority_scope_ref", path, report);
    });
  }
}

/**
 * RAES's semantic rules for `mixed_control` (ACT-617; RAES's validator `_mixed_control`): the mode and the
 * declaration go together; the controlled participant is the specification's; the policy revision is the
 * specification's version; each controller is a declared agent (or `self`) whose authority anchors
 * hold the state's authority basis and whose operating scope, like the specification's authority scope,
 * holds the state's scope; the initial state and every transition's from-state are not revoked; a
 * transition's effective order is inside both states' validity; an answer starts from its proposal's
 * resulting state and revision; a handoff changes controller; every ref names exactly one declaration.
 */
export function checkMixedControl(index: ScenarioIndex, aliases: DeclarationAliases, report: Report): void {
  for (const [name, spec] of Object.entries(index.scenario.behavior_specifications)) {
    const at = joinPointer("/behavior_specifications", name);
    const declaration = spec.mixed_control;
    if (spec.behavior_mode === "mixed-control" && declaration === undefined) {
      report({
        code: DiagnosticCode.mixedControlMissing,
        message: `behavior specification '${name}' has behavior_mode mixed-control but no mixed_control`,
        path: joinPointer(at, "behavior_mode"),
      });
    }
    if (declaration === undefined) continue;
    const mcAt = joinPointer(at, "mixed_control");
    if (spec.behavior_mode !== "mixed-control") {
      report({
        code: DiagnosticCode.mixedControlModeMismatch,
        message: `behavior specification '${name}' declares mixed_control but its behavior_mode is not mixed-control`,
        path: mcAt,
      });
    }
    checkDeclaration(index, aliases, spec, declaration, mcAt, report);
  }
}

function checkDeclaration(
  index: ScenarioIndex,
  aliases: DeclarationAliases,
  spec: BehaviorSpecification,
  declaration: MixedControl,
  at: string,
  report: Report,
): void {
  if (!spec.participant_refs.includes(declaration.participant_ref)) {
    report({
      code: DiagnosticCode.mixedControlParticipantUnbound,
      message: `mixed_control participant_ref '${declaration.participant_ref}' is not among the specification's participant_refs`,
      path: joinPointer(at, "participant_ref"),
    });
  }
  if (declaration.policy_revision !== spec.semantic_version) {
    report({
      code: DiagnosticCode.mixedControlPolicyRevisionMismatch,
      message: `mixed_control policy_revision '${declaration.policy_revision}' is not the specification's semantic_version '${spec.semantic_version}'`,
      path: joinPointer(at, "policy_revision"),
    });
  }
  const ownerScope = union(spec.authority_scope_refs, (ref) => aliases.targetableBy(ref));
  for (const [stateId, state] of Object.entries(declaration.controller_states)) {
    const stateAt = joinPointer(at, "controller_states", stateId);
    checkState(index, aliases, declaration, stateId, state, ownerScope, stateAt, report);
  }
  const initial = declaration.controller_states[declaration.initial_state_ref];
  if (initial?.authority_status === "revoked") {
    report({
      code: DiagnosticCode.mixedControlInitialRevoked,
      message: `mixed_control initial state '${declaration.initial_state_ref}' has revoked authority`,
      path: joinPointer(at, "initial_state_ref"),
    });
  }
  for (const [transitionId, transition] of Object.entries(declaration.transitions)) {
    const transitionAt = joinPointer(at, "transitions", transitionId);
    checkTransition(aliases, declaration, transitionId, transition, transitionAt, report);
  }
}

function checkState(
  index: ScenarioIndex,
  aliases: DeclarationAliases,
  declaration: MixedControl,
  stateId: string,
  state: ControllerState,
  ownerScope: ReadonlySet<string>,
  at: string,
  report: Report,
): void {
  const controllerRef = state.controller_ref === "self" ? declaration.participant_ref : state.controller_ref;
  const agents = index.scenario.agents;
  const controller = Object.hasOwn(agents, controllerRef) ? agents[controllerRef] : undefined;
  if (controller === undefined) {
    report({
      code: DiagnosticCode.mixedControlControllerUnbound,
      message: `controller state '${stateId}' controller_ref '${state.controller_ref}' names no declared agent (or self)`,
      path: joinPointer(at, "controller_ref"),
    });
    return;
  }
  const authority = union(controller.authority_anchors, (ref) => aliases.namedBy(ref));
  state.authority_basis_refs.forEach((ref, i) => {
    const path = joinPointer(at, "authority_basis_refs", i);
    const resolved = aliases.namedBy(ref);
    checkNamedRef(resolved, ref, "authority_basis_ref", path, report);
    if (!within(resolved, authority)) {
      report({
        code: DiagnosticCode.mixedControlAuthorityOutsideController,
        message: `controller state '${stateId}' authority basis '${ref}' is not among controller '${state.controller_ref}' authority_anchors`,
        path,
      });
    }
  });
  const controllerScope = union(controller.operating_scope, (ref) => aliases.targetableBy(ref));
  state.scope_refs.forEach((ref, i) => {
    const path = joinPointer(at, "scope_refs", i);
    const resolved = aliases.targetableBy(ref);
    checkNamedRef(resolved, ref, "scope_ref", path, report);
    if (!within(resolved, ownerScope)) {
      report({
        code: DiagnosticCode.mixedControlScopeWidensSpecification,
        message: `controller state '${stateId}' scope_ref '${ref}' is outside the specification's authority_scope_refs`,
        path,
      });
    }
    if (!within(resolved, controllerScope)) {
      report({
        code: DiagnosticCode.mixedControlScopeOutsideController,
        message: `controller state '${stateId}' scope_ref '${ref}' is outside controller '${state.controller_ref}' operating_scope`,
        path,
      });
    }
  });
  checkEvidence(aliases, state.evidence_refs, joinPointer(at, "evidence_refs"), report);
}

function checkEvidence(
  aliases: DeclarationAliases,
  refs: readonly string[],
  at: string,
  report: Report,
): void {
  refs.forEach((ref, i) => {
    checkNamedRef(aliases.namedBy(ref), ref, "evidence_ref", joinPointer(at, i), report);
  });
}

function checkTransition(
  aliases: DeclarationAliases,
  declaration: MixedControl,
  id: string,
  transition: Transition,
  at: string,
  report: Report,
): void {
  const states = declaration.controller_states;
  const from = states[transition.from_state_ref];
  const to = states[transition.to_state_ref];
  if (from === undefined || to === undefined) return;
  const order = transition.effective_order;
  const problems: [boolean, Finding["code"], string][] = [
    [
      from.authority_status === "revoked",
      DiagnosticCode.mixedControlTransitionFromRevoked,
      `transition '${id}' starts from revoked authority`,
    ],
    [
      order < from.valid_from_order || order > from.valid_until_order,
      DiagnosticCode.mixedControlTransitionOutsideFromState,
      `transition '${id}' effective_order ${order} is outside its from-state's validity`,
    ],
    [
      order < to.valid_from_order || order > to.valid_until_order,
      DiagnosticCode.mixedControlTransitionOutsideToState,
      `transition '${id}' effective_order ${order} is outside its to-state's validity`,
    ],
  ];
  const proposalRef = transition.proposal_ref ?? undefined;
  const proposal =
    proposalRef !== undefined && Object.hasOwn(declaration.transitions, proposalRef)
      ? declaration.transitions[proposalRef]
      : undefined;
  if (proposal !== undefined) {
    problems.push(
      [
        transition.from_state_ref !== proposal.to_state_ref,
        DiagnosticCode.mixedControlAnswerStateMismatch,
        `transition '${id}' does not start from its proposal's resulting state`,
      ],
      [
        transition.expected_state_revision !== proposal.resulting_state_revision,
        DiagnosticCode.mixedControlAnswerRevisionMismatch,
        `transition '${id}' does not expect its proposal's resulting state revision`,
      ],
    );
  }
  problems.push([
    transition.transition_kind === "handoff" && from.controller_ref === to.controller_ref,
    DiagnosticCode.mixedControlHandoffSameController,
    `handoff transition '${id}' does not change controller`,
  ]);
  for (const [failed, code, message] of problems) if (failed) report({ code, message, path: at });
  checkEvidence(aliases, transition.evidence_refs, joinPointer(at, "evidence_refs"), report);
  checkEvidence(
    aliases,
    transition.completion_evidence_refs,
    joinPointer(at, "completion_evidence_refs"),
    report,
  );
}

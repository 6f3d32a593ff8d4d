import type { Infer } from "./shape.js";
import { integer, list, nullable, record, text } from "./shape.js";
import type { StructRule } from "./struct.js";
import { optional, required, struct, withDefault } from "./struct.js";

const prose = () => text({ nonEmpty: true });
const identifier = () => text({ identifier: true });
const order = () => integer({ min: 0 });
const reject = () => text({ oneOf: ["reject-no-state-change"] });

/** Refs of a controller state: at least one, none blank, no repeats. */
const stateRefs = () => list(prose(), { unique: true, minItems: 1 });
/** Evidence refs of a transition: none blank, no repeats. */
const transitionRefs = () => list(prose(), { unique: true });

const dispositions = struct({
  duplicate: required(text({ oneOf: ["idempotent-if-equivalent"] })),
  stale: required(reject()),
  revoked: required(reject()),
  late: required(reject()),
  concurrent: required(text({ oneOf: ["order-then-revalidate"] })),
  conflict: required(reject()),
});

const controllerState = struct(
  {
    controller_ref: required(prose()),
    authority_basis_refs: required(stateRefs()),
    scope_refs: required(stateRefs()),
    policy_revision: required(prose()),
    valid_from_order: required(order()),
    valid_until_order: required(order()),
    authority_status: required(text({ oneOf: ["active", "revoked"] })),
    evidence_refs: required(stateRefs()),
  },
  [
    (state, fail) => {
      if (state.valid_until_order < state.valid_from_order) {
        fail("a controller state's validity interval must not be inverted", "valid_until_order");
      }
    },
  ],
);

const TRANSITION_KINDS = [
  "proposal",
  "approval",
  "denial",
  "external-direction",
  "intervention",
  "handoff",
  "override",
  "cancellation",
] as const;
/** Kinds that answer a proposal, so they name one. */
const ANSWERS: readonly string[] = ["approval", "denial", "external-direction"];

const transition = struct(
  {
    transition_kind: required(text({ oneOf: TRANSITION_KINDS })),
    from_state_ref: required(identifier()),
    to_state_ref: required(identifier()),
    policy_revision: required(prose()),
    expected_state_revision: required(order()),
    resulting_state_revision: required(integer({ min: 1 })),
    effective_order: required(order()),
    valid_from_order: required(order()),
    valid_until_order: required(order()),
    proposal_ref: optional(nullable(identifier())),
    proposal_revision: optional(nullable(integer({ min: 1 }))),
    evidence_refs: required(transitionRefs()),
    completion_evidence_refs: withDefault(transitionRefs(), []),
  },
  [
    (item, fail) => {
      if (item.evidence_refs.length === 0)
        fail("a mixed-control transition needs evidence_refs", "evidence_refs");
      if (item.valid_until_order < item.valid_from_order) {
        fail("a transition's validity interval must not be inverted", "valid_until_order");
      } else if (
        item.effective_order < item.valid_from_order ||
        item.effective_order > item.valid_until_order
      ) {
        fail("effective_order must fall within the validity interval", "effective_order");
      }
      if (item.resulting_state_revision !== item.expected_state_revision + 1) {
        fail("a transition advances the state revision by exactly one", "resulting_state_revision");
      }
      const ref = item.proposal_ref ?? undefined;
      const revision = item.proposal_revision ?? undefined;
      if ((ref === undefined) !== (revision === undefined)) {
        fail("proposal_ref and proposal_revision go together", "proposal_ref");
      }
      const names = ref !== undefined || revision !== undefined;
      if (ANSWERS.includes(item.transition_kind) && !names) {
        fail(`${item.transition_kind} transitions need a proposal_ref and revision`, "proposal_ref");
      }
      if (item.transition_kind === "proposal" && names) {
        fail("a proposal cannot answer another proposal", "proposal_ref");
      }
      if (item.transition_kind === "handoff" && item.completion_evidence_refs.length === 0) {
        fail("handoff transitions need completion_evidence_refs", "completion_evidence_refs");
      }
    },
  ],
);

type MixedControlValue = {
  readonly policy_revision: string;
  readonly initial_state_ref: string;
  readonly controller_states: Readonly<Record<string, Infer<typeof controllerState>>>;
  readonly transitions: Readonly<Record<string, Infer<typeof transition>>>;
};

/** RAES's policy-graph rules: roots, one policy revision, unique orders, revision continuity, proposal links. */
const policyGraph: StructRule<MixedControlValue> = (value, fail) => {
  const states = value.controller_states;
  const transitions = value.transitions;
  if (Object.keys(states).length === 0)
    return fail("mixed_control needs controller_states", "controller_states");
  if (Object.keys(transitions).length === 0) return fail("mixed_control needs transitions", "transitions");
  if (!Object.hasOwn(states, value.initial_state_ref)) {
    return fail("initial_state_ref must name a controller state", "initial_state_ref");
  }
  for (const [id, state] of Object.entries(states)) {
    if (state.policy_revision !== value.policy_revision) {
      return fail(`controller state '${id}' has a stale policy revision`, "controller_states", id);
    }
  }
  const orders = new Set<number>();
  for (const [id, item] of Object.entries(transitions)) {
    if (item.policy_revision !== value.policy_revision) {
      return fail(`transition '${id}' has a stale policy revision`, "transitions", id);
    }
    if (!Object.hasOwn(states, item.from_state_ref) || !Object.hasOwn(states, item.to_state_ref)) {
      return fail(`transition '${id}' names an unknown controller state`, "transitions", id);
    }
    if (orders.has(item.effective_order)) {
      return fail("transitions need unique effective_order values", "transitions", id);
    }
    orders.add(item.effective_order);
  }
  const ordered = Object.entries(transitions).sort(([, a], [, b]) => a.effective_order - b.effective_order);
  const established = new Set([`${value.initial_state_ref}\u0000${0}`]);
  for (const [id, item] of ordered) {
    if (!established.has(`${item.from_state_ref}\u0000${item.expected_state_revision}`)) {
      const message = `transition '${id}' expects state revision ${item.expected_state_revision} of '${item.from_state_ref}', which is not established`;
      return fail(message, "transitions", id);
    }
    established.add(`${item.to_state_ref}\u0000${item.resulting_state_revision}`);
  }
  for (const [id, item] of ordered) {
    const ref = item.proposal_ref ?? undefined;
    if (ref === undefined) continue;
    const proposal = Object.hasOwn(transitions, ref) ? transitions[ref] : undefined;
    if (proposal === undefined || proposal.transition_kind !== "proposal") {
      return fail(`transition '${id}' proposal_ref must name a proposal`, "transitions", id);
    }
    if (item.proposal_revision !== proposal.resulting_state_revision) {
      return fail(`transition '${id}' has a stale proposal revision`, "transitions", id);
    }
    if (item.effective_order <= proposal.effective_order) {
      return fail(`transition '${id}' must follow its proposal`, "transitions", id);
    }
  }
};

/** A behavior specification's `mixed_control`: one participant's authored control states and revision-checked transitions (RAES). */
export const mixedControlShape = struct(
  {
    participant_ref: required(prose()),
    policy_revision: required(prose()),
    order_strategy: required(text({ oneOf: ["total-effective-order"] })),
    initial_state_ref: required(identifier()),
    dispositions: required(dispositions),
    controller_states: required(record(controllerState)),
    transitions: required(record(transition)),
  },
  [policyGraph],
);

/** A decoded `mixed_control`. */
export type MixedControl = Infer<typeof mixedControlShape>;

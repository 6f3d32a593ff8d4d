/**
 * Generates a valid RAES scenario of any size for the compile bench: `agents` green agents in groups of ten,
 * 20 shared action contracts, and per group one observation boundary and one autonomous behavior
 * specification with 5 tool affordances of 4 actions each, so every agent gets 5 × 4 = 20 affordance bindings.
 */

/** Action contracts in every generated scenario. */
export const GENERATED_ACTIONS = 20;
/** Tool affordances per behavior specification. */
export const GENERATED_AFFORDANCES = 5;
/** Agents per behavior specification. */
export const GENERATED_GROUP_SIZE = 10;

const FEATURES =
  "[action_contracts, autonomous_execution, behavior_history, observation_boundaries, temporal_contracts]";
const pad = (value: number, width: number) => String(value).padStart(width, "0");
const actionName = (index: number) => `act-${pad(index, 2)}`;

function header(): string {
  let out = "name: generated-bench\nversion: '1.0'\ndescription: generated compile bench scenario\nnodes:\n";
  for (let n = 0; n < 4; n++) {
    out += `  node-${n}:\n    type: vm\n    services:\n    - name: svc-a\n      port: 80${n}0\n    - name: svc-b\n      port: 90${n}0\n`;
  }
  out += "entities:\n  green-team:\n    role: green\ncontent:\n";
  for (let t = 0; t < GENERATED_AFFORDANCES; t++)
    out += `  tool-${t}:\n    type: file\n    path: /tools/${t}\n`;
  out += "  evidence-0:\n    type: dataset\n  evidence-1:\n    type: dataset\n";
  out += "action_contracts:\n";
  for (let a = 0; a < GENERATED_ACTIONS; a++) {
    const node = a % 4;
    out += `  ${actionName(a)}:
    semantic_version: 1.0.0
    behavioral_granularity: atomic
    procedure_basis: generated
    realization_profile: backend-declared
    fidelity_claim: generated
    preconditions:
    - precondition_id: target-present
      precondition_class: target
      description: the target exists
      support_refs: [nodes.node-${node}.services.svc-a, content.evidence-0, agents.free-text]
    effects:
    - effect_id: reached
      effect_class: intended_effect
      description: the target is reached
      target_refs: [nodes.node-${node}, nodes.node-${(node + 1) % 4}.services.svc-b]
      evidence_refs: [content.evidence-1]
    failure_classes: [target_unavailable, unknown]
`;
  }
  out += `time_domains:
  scenario:
    kind: simulated
    tick_period_seconds: {numerator: 1, denominator: 1}
    epoch: scenario_start
    description: generated
clocks:
  clock:
    time_domain_ref: scenario
    authority_kind: runtime
    authority_ref: runtime.time-coordinator
    monotonicity: non_decreasing
    supports_pause: true
    supports_reset: true
    description: generated
time_progression_policies:
  progression:
    clock_ref: clock
    advancement_mode: stepped
    synchronization_mode: barrier
    step_ticks: 10
    reset_behavior: new_segment_zero
    replay_behavior: restore_recorded_advances
    description: generated
temporal_constraints:
  cadence:
    constraint_kind: cadence
    clock_ref: clock
    subject_refs: [nodes.node-0]
    start: {tick: 0}
    cadence_ticks: 10
    description: generated
`;
  return out;
}

function affordanceRef(group: string, t: number): string {
  return `behavior_specifications.spec-${group}.tool_affordances.aff-${t}`;
}

/** The YAML text of a generated scenario with `agents` agents. */
export function generateScenario(agents: number): string {
  const groups = Math.ceil(agents / GENERATED_GROUP_SIZE);
  const allActions = `[${Array.from({ length: GENERATED_ACTIONS }, (_, a) => actionName(a)).join(", ")}]`;
  const agentName = (index: number) => `agent-${pad(index, 5)}`;
  const parts: string[] = [header(), "observation_boundaries:\n"];
  for (let g = 0; g < groups; g++) {
    const group = `g${pad(g, 4)}`;
    let out = `  view-${group}:\n    projection_basis: generated\n    observable_refs:\n`;
    for (let t = 0; t < GENERATED_AFFORDANCES; t++) out += `    - ${affordanceRef(group, t)}\n`;
    out += "    evidence_refs: [content.evidence-0, content.evidence-1]\n";
    out += "    redaction_policy: generated\n    latency_profile: terminal\n    view_rules:\n";
    for (let t = 0; t < GENERATED_AFFORDANCES; t++) {
      out += `    - {information_ref: ${affordanceRef(group, t)}, boundary_class: observable_resource, disposition: observable, visibility_basis: generated}\n`;
    }
    for (const evidence of ["evidence-0", "evidence-1"]) {
      out += `    - {information_ref: content.${evidence}, boundary_class: archival_evidence, disposition: evidence_only, visibility_basis: generated, evidence_refs: [content.${evidence}]}\n`;
    }
    parts.push(out);
  }
  parts.push("agents:\n");
  for (let i = 0; i < agents; i++) {
    const group = `g${pad(Math.floor(i / GENERATED_GROUP_SIZE), 4)}`;
    parts.push(
      `  ${agentName(i)}:\n    entity: green-team\n    actions: ${allActions}\n    observation_boundaries: [view-${group}]\n`,
    );
  }
  parts.push("behavior_specifications:\n");
  for (let g = 0; g < groups; g++) {
    const group = `g${pad(g, 4)}`;
    const members: string[] = [];
    for (let i = g * GENERATED_GROUP_SIZE; i < Math.min(agents, (g + 1) * GENERATED_GROUP_SIZE); i++) {
      members.push(agentName(i));
    }
    let out = `  spec-${group}:
    semantic_version: 1.0.0
    participant_refs: [${members.join(", ")}]
    action_contract_refs: ${allActions}
    observation_boundary_refs: [view-${group}]
    backend_feature_support_refs: ${FEATURES}
    autonomous_execution:
      participant_implementation_ref: generated-worker.v1
      clock_ref: clock
      progression_policy_ref: progression
      temporal_constraint_refs: [cadence]
      action_order: ${allActions}
      observation_boundary_ref: view-${group}
      max_action_attempts: 100
      max_in_flight: 2
      evaluation_authority: {mode: none}
    tool_affordances:
`;
    for (let t = 0; t < GENERATED_AFFORDANCES; t++) {
      const actions = Array.from({ length: 4 }, (_, k) => actionName(t * 4 + k)).join(", ");
      out += `      aff-${t}: {tool_ref: content.tool-${t}, action_contract_refs: [${actions}], observation_boundary_refs: [view-${group}]}\n`;
    }
    parts.push(out);
  }
  return parts.join("");
}

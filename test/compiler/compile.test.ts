import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compileScenario,
  RUNTIME_MODEL_SCHEMA,
  type RuntimeModel,
  toWireJson,
} from "../../src/compiler/index.js";
import { formatDiagnostic, hasErrors, loadScenario } from "../../src/sdl/index.js";
import { type Edit, EXAMPLE_PATH, editExample } from "../fixtures/scenarios/example.js";
import {
  HIDDEN_AFFORDANCE,
  SECOND_AFFORDANCE,
  UNSCOPED_AFFORDANCE,
  V2_POLICY,
} from "../fixtures/scenarios/valid/variants.js";

const PARTICIPANT = "participant.behavior.participant-agent";
const HELPER = "participant.behavior.helper-agent";
const ACTION = "participant.action-contract.probe-customer-portal-login";
const BOUNDARY = "participant.observation-boundary.participant-view";
const POLICY = "participant.autonomous-execution.participant-behavior";
const AFFORDANCE = "participant.behavior-specification.participant-behavior.tool-affordance.portal-client";
const EXAMPLE_TARGETS = [
  "provision.node.customer-portal.service.http",
  "provision.node.wazuh-manager",
  "provision.node.participant-policy-gate",
  "provision.node.wazuh-manager.service.wazuh-api",
  "provision.content.wazuh-evidence",
  "provision.node.participant-policy-gate.service.policy-gate-api",
  "provision.content.policy-decision-log",
];

function compileText(text: string): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(text, { source: "text" });
  assert.equal(hasErrors(diagnostics), false, diagnostics.map((d) => formatDiagnostic(d)).join("\n"));
  assert.ok(scenario);
  return compileScenario(scenario);
}

const compileEdited = (edits: readonly Edit[]) => compileText(editExample(edits));

describe("compileScenario on the example", () => {
  const { scenario } = loadScenario(EXAMPLE_PATH);
  assert.ok(scenario);
  const model = compileScenario(scenario);

  it("emits one affordance binding carrying the 7 targets in docs/design.md §2 order", () => {
    assert.deepEqual(model.affordanceBindings, [
      {
        toolAffordanceAddress: AFFORDANCE,
        actionContractAddress: ACTION,
        participantAddress: PARTICIPANT,
        observationBoundaryAddresses: [BOUNDARY],
        targetAddresses: EXAMPLE_TARGETS,
      },
    ]);
  });

  it("emits the execution binding with the manifest's binding id, the implementation ref and the policy's limits", () => {
    const policy = model.autonomousPolicies[POLICY];
    assert.deepEqual(policy?.executionBindings, [
      {
        bindingId: `${POLICY}.binding.probe-customer-portal-login`,
        actionContractAddress: ACTION,
        targetAddresses: EXAMPLE_TARGETS,
        participantImplementationRef: "participant-implementation-manifests.green-worker.v1",
        maxActionAttempts: 2,
        maxInFlight: 1,
      },
    ]);
  });

  it("compiles the policy's time bindings, cadence and participants", () => {
    const policy = model.autonomousPolicies[POLICY];
    assert.equal(policy?.profile, "participant-autonomous-execution/v1");
    assert.deepEqual(policy?.participantAddresses, [PARTICIPANT]);
    assert.equal(policy?.clockAddress, "time.clock.scenario-clock");
    assert.equal(policy?.progressionPolicyAddress, "time.policy.scenario-progression");
    assert.equal(policy?.cadenceConstraintAddress, "time.constraint.green-cadence");
    assert.deepEqual(policy?.actionOrder, [ACTION]);
    assert.equal(policy?.observationBoundaryAddress, BOUNDARY);
    assert.equal(policy?.evaluationAuthorityMode, "none");
    assert.deepEqual(model.progressionPolicies["time.policy.scenario-progression"]?.stepTicks, 10);
    assert.deepEqual(model.temporalConstraints["time.constraint.green-cadence"]?.cadenceTicks, 10);
  });

  it("lets an outcome cite only declared evidence whose view rule is not hidden", () => {
    const boundary = model.observationBoundaries[BOUNDARY];
    assert.deepEqual(boundary?.outcomeEvidenceRefs, [
      "content.participant-observation",
      "content.wazuh-evidence",
      "content.policy-decision-log",
      "content.boundary-check-evidence",
    ]);
    assert.equal(boundary?.declaredRefs.includes("content.evaluator-notes"), true);
  });

  it("has no shared-time binding on the example's action", () => {
    assert.equal(model.actionContracts[ACTION]?.sharedTimeBound, false);
  });

  it("keys every record by sorted addresses and tags the schema", () => {
    assert.equal(model.schema, RUNTIME_MODEL_SCHEMA);
    for (const record of [model.actionContracts, model.participants, model.clocks, model.toolAffordances]) {
      const keys = Object.keys(record);
      assert.deepEqual(keys, [...keys].sort());
      for (const [key, value] of Object.entries(record)) assert.equal(value.address, key);
    }
  });

  it("serialises to snake_case wire JSON with address keys untouched", () => {
    const wire = JSON.parse(toWireJson(model));
    assert.equal(wire.affordance_bindings[0].participant_address, PARTICIPANT);
    assert.ok(wire.autonomous_policies[POLICY].execution_bindings[0].binding_id);
    assert.equal(JSON.stringify(wire).includes("targetAddresses"), false);
  });
});

describe("compileScenario on valid variants", () => {
  it("binds a second affordance with a distinct tool_ref on the same action separately", () => {
    const model = compileEdited(SECOND_AFFORDANCE);
    const browser = "participant.behavior-specification.participant-behavior.tool-affordance.portal-browser";
    assert.deepEqual(
      model.affordanceBindings.map((b) => [
        b.participantAddress,
        b.toolAffordanceAddress,
        b.actionContractAddress,
      ]),
      [
        [PARTICIPANT, browser, ACTION],
        [PARTICIPANT, AFFORDANCE, ACTION],
      ],
    );
    for (const binding of model.affordanceBindings)
      assert.deepEqual(binding.targetAddresses, EXAMPLE_TARGETS);
    assert.equal(model.toolAffordances[browser]?.toolAddress, "provision.content.task-brief");
    assert.equal(model.toolAffordances[AFFORDANCE]?.toolAddress, "");
  });

  it("binds an affordance whose view rule classifies it hidden", () => {
    const model = compileEdited(HIDDEN_AFFORDANCE);
    assert.deepEqual(
      model.affordanceBindings.map((b) => b.toolAffordanceAddress),
      [AFFORDANCE],
    );
    const rules = model.observationBoundaries[BOUNDARY]?.viewRules ?? [];
    const rule = rules.find((r) => r.informationRef.endsWith("tool_affordances.portal-client"));
    assert.equal(rule?.disposition, "hidden");
  });

  it("binds an unscoped affordance in a spec without a policy to the spec's role participants only", () => {
    const model = compileEdited(UNSCOPED_AFFORDANCE);
    const manual = "participant.behavior-specification.manual-behavior.tool-affordance.manual-client";
    assert.deepEqual(
      model.affordanceBindings.map((b) => [b.participantAddress, b.toolAffordanceAddress]),
      [
        [HELPER, manual],
        [PARTICIPANT, manual],
        [PARTICIPANT, AFFORDANCE],
      ],
    );
    const spec = model.behaviorSpecifications["participant.behavior-specification.manual-behavior"];
    assert.deepEqual(spec?.participantAddresses, []);
    assert.deepEqual(spec?.scopeParticipantAddresses, [HELPER, PARTICIPANT]);
    assert.equal(spec?.autonomousPolicyAddress, undefined);
    assert.deepEqual(model.autonomousPolicies[POLICY]?.participantAddresses, [PARTICIPANT]);
  });

  it("marks an action with temporal contracts as shared-time bound", () => {
    const model = compileText(
      editExample([
        [
          "    backend_failure_mappings:\n",
          `    temporal_contracts:
    - temporal_id: probe-cadence
      temporal_kind: cadence
      time_domain: scenario_time
      clock_authority: runtime.time-coordinator
      event_points: [start]
      description: The probe runs on the shared cadence.
      duration_ref: time.constraint.green-cadence
      reset_boundary: scenario reset
      replay_boundary: scenario replay
      randomization_basis: none, the cadence is fixed
      ordering_basis: scenario clock ticks
      backend_disclosure_refs: [probe-pacing]
    backend_timing_disclosures:
    - disclosure_id: probe-pacing
      disclosure_kind: pacing
      support_mode: exact
      description: The backend paces the probe exactly.
      affected_temporal_ids: [probe-cadence]
    backend_failure_mappings:
`,
        ],
      ]),
    );
    assert.equal(model.actionContracts[ACTION]?.sharedTimeBound, true);
  });

  it("validates and compiles a v2 activity policy structurally, without a cadence", () => {
    const model = compileEdited(V2_POLICY);
    const policy = model.autonomousPolicies[POLICY];
    assert.equal(policy?.profile, "participant-autonomous-execution/v2");
    assert.equal(policy?.selectionStrategy, "weighted");
    assert.equal(policy?.cadenceConstraintAddress, undefined);
    assert.deepEqual(policy?.temporalConstraintAddresses, ["time.constraint.green-window"]);
    assert.deepEqual(policy?.actionOrder, [ACTION]);
    assert.equal(policy?.executionBindings[0]?.bindingId, `${POLICY}.binding.probe-customer-portal-login`);
    assert.equal(model.affordanceBindings.length, 1);
  });
});

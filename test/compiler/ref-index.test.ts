import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { compileScenario, type RuntimeModel, toWireValue } from "../../src/compiler/index.js";
import { formatDiagnostic, hasErrors, loadScenario } from "../../src/sdl/index.js";

/** The evidence-loop example with every participant surface the ref index resolves (tools/make-participant-surfaces.py). */
const SURFACES = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures",
  "raes-compile",
  "participant-surfaces.sdl.yaml",
);

function compileSurfaces(): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(readFileSync(SURFACES, "utf8"), { source: "text" });
  assert.equal(hasErrors(diagnostics), false, diagnostics.map((d) => formatDiagnostic(d)).join("\n"));
  assert.ok(scenario);
  return compileScenario(scenario);
}

const model = compileSurfaces();
const agent = model.participants["participant.behavior.participant-agent"];
const spec = model.behaviorSpecifications["participant.behavior-specification.controlled-participant"];
const boundary = model.observationBoundaries["participant.observation-boundary.participant-view"];

describe("the ref index resolves authored refs to runtime addresses, as RAES's", () => {
  it("resolves a content entry, an account and a condition template; an entity, an assertion and a bare name two sections share resolve to nothing", () => {
    assert.ok(agent);
    assert.deepEqual(agent.authorityAnchorRefs, [
      "enterprise-participant",
      "task-brief",
      "accounts.portal-admin",
      "http",
      "conditions.wazuh-manager-health",
      "assertions.boundary-checks-recorded",
    ]);
    // `enterprise-participant` is an entity (no address); `http` is both a service and an account.
    // An assertion is meaning only: the index has no assertions, so `assertions.…` resolves to nothing.
    assert.deepEqual(agent.authorityAnchorAddresses, [
      "provision.content.task-brief",
      "provision.account.portal-admin",
      "template.condition.wazuh-manager-health",
    ]);
  });

  it("gives a switch node a network address, bare or as infrastructure, and a VM a node address", () => {
    assert.ok(agent);
    assert.deepEqual(agent.operatingScopeAddresses, [
      "provision.node.customer-portal.service.http",
      "provision.content.task-brief",
      "provision.network.dmz-net",
      "provision.network.internal-net",
      "provision.node.customer-db",
      "provision.node.customer-db.service.postgres",
      "provision.node.customer-portal",
    ]);
  });

  it("resolves initial knowledge: hosts, subnets, every node's service of a bare name, and declared accounts", () => {
    assert.ok(agent);
    assert.deepEqual(agent.initialKnowledgeAddresses, [
      "provision.node.red-workbench",
      "provision.node.customer-portal",
      "provision.network.dmz-net",
      "provision.network.redteam-net",
      "provision.node.red-workbench.service.ssh",
      "provision.node.customer-portal.service.http",
      "provision.node.wazuh-manager.service.syslog",
      "provision.account.db-reader",
      "provision.account.portal-admin",
    ]);
    assert.deepEqual(agent.startingAccountAddresses, [
      "provision.account.portal-admin",
      "provision.account.db-reader",
    ]);
    assert.deepEqual(agent.startingAssertionAddresses, ["evaluation.assertion.portal-reachable"]);
  });

  it("compiles interactive access sorted by id, with its target and account resolved, into the refresh dependencies", () => {
    assert.ok(agent);
    assert.deepEqual(agent.interactiveAccess, [
      {
        accessId: "admin-desktop",
        targetRef: "customer-portal",
        targetAddress: "provision.node.customer-portal",
        channel: "rdp",
        accountRef: "accounts.portal-admin",
        accountAddress: "provision.account.portal-admin",
      },
      {
        accessId: "workbench-shell",
        targetRef: "nodes.red-workbench",
        targetAddress: "provision.node.red-workbench",
        channel: "ssh",
        accountRef: "",
        accountAddress: "",
      },
    ]);
    assert.ok(agent.refreshDependencies.includes("provision.account.portal-admin"));
  });

  it("resolves content items in mixed-control evidence, bare and qualified", () => {
    assert.ok(spec);
    const approve = spec.controlTransitions.find(
      (transition) => transition.transitionId === "approve-supervision",
    );
    assert.deepEqual(approve?.evidenceAddresses, [
      "provision.content.wazuh-evidence",
      "provision.content.participant-observation.items.login-form",
      "provision.content.participant-observation.items.banner",
    ]);
    assert.deepEqual(
      spec.controlTransitions.map((transition) => transition.transitionId),
      ["propose-supervision", "approve-supervision"],
      "transitions run in effective_order",
    );
    assert.equal(
      approve?.proposalAddress,
      "participant.behavior-specification.controlled-participant.control-transition.propose-supervision",
    );
    assert.equal(spec.mixedControlParticipantAddress, "participant.behavior.supervisor-agent");
  });
});

describe("an observation boundary's view relation over time", () => {
  it("orders the transitions by effective_order and snapshots the relation after each", () => {
    assert.ok(boundary);
    assert.deepEqual(
      boundary.viewRelationTimeline.map((snapshot) => [snapshot.transitionId, snapshot.effectiveOrder]),
      [
        ["initial", -1],
        ["portal-discovered", 2],
        ["hint-disclosed", 3],
        ["portal-concealed", 7],
      ],
    );
    const last = boundary.viewRelationTimeline.at(-1);
    assert.equal(last?.viewRelation["nodes.customer-portal.services.http"], "concealed");
    assert.deepEqual(last?.disclosedRefs, ["Portal-Hint", "content.portal-banner"]);
    assert.equal(last?.actionInstanceId, "", "an episode_close transition has no action instance");
    assert.deepEqual(boundary.inferredRefs, ["Portal-Hint"]);
  });

  it("keeps the view relation's authored refs as written in the wire form", () => {
    const wire = toWireValue(boundary) as {
      view_relation_timeline: { view_relation: Record<string, string> }[];
    };
    assert.equal(wire.view_relation_timeline[0]?.view_relation["Portal-Hint"], "inferred");
  });
});

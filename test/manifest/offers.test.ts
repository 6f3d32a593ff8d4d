import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkManifest, indexExecutionOffers } from "../../src/manifest/index.js";
import { editedExample } from "./fixtures.js";

const ACTION = "participant.action-contract.probe-customer-portal-login";
const IMPLEMENTATION = "participant-implementation-manifests.green-worker.v1";
const PORTAL = "provision.node.customer-portal.service.http";
const WAZUH = "provision.node.wazuh-manager";
const GATE = "provision.node.participant-policy-gate";

/** The example manifest with its single offer replaced by these (binding id, targets) offers. */
function indexOf(offers: readonly (readonly [string, readonly string[], string?])[]) {
  const document = editedExample((m) => {
    const template = m.participant_runtime.execution_bindings[0];
    m.participant_runtime.execution_bindings = offers.map(([bindingId, targets, implementation]) => ({
      ...template,
      binding_id: bindingId,
      target_addresses: targets,
      participant_implementation_ref: implementation ?? IMPLEMENTATION,
    }));
  });
  const { manifest } = checkManifest(document);
  assert.ok(manifest);
  return indexExecutionOffers(manifest);
}

function coveringIds(index: ReturnType<typeof indexOf>, targets: readonly string[], action = ACTION) {
  return index
    .covering({
      actionContractAddress: action,
      participantImplementationRef: IMPLEMENTATION,
      targetAddresses: targets,
    })
    .map((offer) => offer.bindingId);
}

describe("indexExecutionOffers", () => {
  it("finds no offer for another action, another implementation or a target outside every offer", () => {
    const index = indexOf([["portal", [PORTAL, WAZUH]]]);
    assert.deepEqual(coveringIds(index, [PORTAL], "participant.action-contract.other"), []);
    assert.deepEqual(
      index
        .covering({
          actionContractAddress: ACTION,
          participantImplementationRef: "other",
          targetAddresses: [PORTAL],
        })
        .map((offer) => offer.bindingId),
      [],
    );
    assert.deepEqual(coveringIds(index, [PORTAL, GATE]), []);
  });

  it("finds exactly the one offer whose targets include the request's", () => {
    const index = indexOf([
      ["portal", [PORTAL, WAZUH]],
      ["gate", [GATE]],
    ]);
    assert.deepEqual(coveringIds(index, [PORTAL]), ["portal"]);
    assert.deepEqual(coveringIds(index, [WAZUH, PORTAL]), ["portal"]);
    assert.deepEqual(coveringIds(index, [GATE]), ["gate"]);
  });

  it("finds two offers when both include the request's targets", () => {
    const index = indexOf([
      ["wide", [PORTAL, WAZUH, GATE]],
      ["narrow", [PORTAL]],
    ]);
    assert.deepEqual(coveringIds(index, [PORTAL]), ["wide", "narrow"]);
    assert.deepEqual(coveringIds(index, [PORTAL, GATE]), ["wide"]);
  });

  it("treats offer targets as a superset test, not equality", () => {
    const index = indexOf([["all", [PORTAL, WAZUH, GATE]]]);
    assert.deepEqual(coveringIds(index, [GATE, PORTAL]), ["all"]);
    assert.deepEqual(coveringIds(index, [PORTAL, WAZUH, GATE]), ["all"]);
    assert.deepEqual(coveringIds(index, [PORTAL, "provision.node.elsewhere"]), []);
  });

  it("keeps offers of other implementations apart", () => {
    const index = indexOf([
      ["mine", [PORTAL]],
      ["theirs", [PORTAL], "participant-implementation-manifests.other.v1"],
    ]);
    assert.deepEqual(coveringIds(index, [PORTAL]), ["mine"]);
    assert.deepEqual(
      index
        .forAction(ACTION, "participant-implementation-manifests.other.v1")
        .map((offer) => offer.bindingId),
      ["theirs"],
    );
  });
});

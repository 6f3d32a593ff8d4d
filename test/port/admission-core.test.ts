import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RuntimeModel } from "../../src/compiler/index.js";
import { UNSUPPORTED_POLICY_PROFILE } from "../../src/port/index.js";
import { EXAMPLE, exampleManifest, exampleModel } from "../helpers/example.js";
import { requestFor } from "../helpers/tool-requests.js";
import {
  FIRST_INVOCATION,
  modelWithPolicyProfile,
  modelWithSharedTimeBoundProbe,
  openCore,
  rulesFor,
} from "./support/core.js";
import { expectAdmitted, expectRefusedAdmit } from "./support/refusals.js";

const v3 = () => modelWithPolicyProfile(UNSUPPORTED_POLICY_PROFILE);

function manifestWithOfferTargets(targets: string[]): Record<string, unknown> {
  const manifest = exampleManifest();
  for (const binding of manifest.participant_runtime.execution_bindings) binding.target_addresses = targets;
  return manifest;
}

/** Rules 6 and 8, which the example never triggers, on the rules object and on a real port core. */
describe("admission rules the example never triggers", () => {
  const cases: Array<[string, () => RuntimeModel, string]> = [
    ["policy on participant-autonomous-execution/v3", v3, "policy_profile_unsupported"],
    ["action contract with a shared-time binding", modelWithSharedTimeBoundProbe, "shared_time_bound"],
  ];

  it("the unchanged example model admits the request (the control for every case below)", async () => {
    const request = requestFor(FIRST_INVOCATION, "a");
    assert.equal(rulesFor(exampleModel()).check(FIRST_INVOCATION, request), undefined);
    const { core, store } = await openCore(exampleModel());
    const id = await expectAdmitted(core.port, request);
    assert.equal(id, `${FIRST_INVOCATION.invocationActionInstanceId}:tool=1`);
    assert.equal((await store.listToolActions({})).length, 1);
  });

  for (const [label, model, code] of cases) {
    it(`${label}: ParticipantAdmissionRules.check answers ${code}`, () => {
      const rules = rulesFor(model());
      assert.equal(rules.hasBindings, true);
      assert.equal(rules.check(FIRST_INVOCATION, requestFor(FIRST_INVOCATION, "a")), code);
    });

    it(`${label}: the port refuses with ${code}, adds no record and runs no tool, every time`, async () => {
      const { core, store } = await openCore(model());
      for (const toolCallId of ["a", "b", "a"]) {
        await expectRefusedAdmit(core.port, store, requestFor(core.port, toolCallId), code);
      }
      assert.deepEqual(await store.listToolActions({}), []);
      assert.deepEqual(
        await core.settleForClose(),
        { settled: [], changed: [] },
        "nothing to settle, so no history at close",
      );
    });
  }

  it("rule 8 applies to v3 only: v2 and v1 admit", () => {
    const request = requestFor(FIRST_INVOCATION, "a");
    for (const profile of ["participant-autonomous-execution/v1", "participant-autonomous-execution/v2"]) {
      assert.equal(
        rulesFor(modelWithPolicyProfile(profile)).check(FIRST_INVOCATION, request),
        undefined,
        profile,
      );
    }
  });
});

/** docs/design.md §5: rules are checked in table order and the first failing one gives the code. */
describe("rule order on a real port core: each pair of failing rules answers the earlier code", () => {
  const portal = [EXAMPLE.portal];
  const foreignTarget = ["provision.node.customer-db"];

  it("3 before 3b, 3b before 4, 4 before 5, 5 before 5b", async () => {
    const { core, store } = await openCore(exampleModel());
    const p = core.port;
    const pairs: Array<[Record<string, unknown>, string]> = [
      [{ episodeId: "other", executionGeneration: 2 }, "identity_mismatch"],
      [{ executionGeneration: 2, toolAffordanceAddress: "none" }, "generation_mismatch"],
      [{ toolAffordanceAddress: "none", observationBoundaryAddress: "none" }, "affordance_unbound"],
      [{ observationBoundaryAddress: "none", targetAddresses: foreignTarget }, "boundary_outside_binding"],
    ];
    for (const [change, code] of pairs) await expectRefusedAdmit(p, store, requestFor(p, "a", change), code);
  });

  it("5b before 6, 6 before 7", async () => {
    const { core, store } = await openCore(modelWithSharedTimeBoundProbe());
    const p = core.port;
    await expectRefusedAdmit(
      p,
      store,
      requestFor(p, "a", { targetAddresses: foreignTarget }),
      "target_outside_binding",
    );
    const noOffer = rulesFor(modelWithSharedTimeBoundProbe(), {
      manifest: manifestWithOfferTargets(["provision.node.wazuh-manager"]),
    });
    assert.equal(noOffer.check(FIRST_INVOCATION, requestFor(FIRST_INVOCATION, "a")), "shared_time_bound");
    const noOfferCore = await openCore(modelWithSharedTimeBoundProbe(), { rules: noOffer });
    await expectRefusedAdmit(
      noOfferCore.core.port,
      noOfferCore.store,
      requestFor(p, "a"),
      "shared_time_bound",
    );
  });

  it("7 before 8, 8 before 8b", async () => {
    const noOfferV3 = rulesFor(v3(), {
      manifest: manifestWithOfferTargets(["provision.node.wazuh-manager"]),
    });
    const a = await openCore(v3(), { rules: noOfferV3 });
    await expectRefusedAdmit(a.core.port, a.store, requestFor(FIRST_INVOCATION, "a"), "no_execution_offer");
    const crossingV3 = rulesFor(v3(), { crossingPolicyInstalled: true });
    const b = await openCore(v3(), { rules: crossingV3 });
    await expectRefusedAdmit(
      b.core.port,
      b.store,
      requestFor(FIRST_INVOCATION, "a"),
      "policy_profile_unsupported",
    );
  });

  it("8b before 9: with no room left, a crossing policy still answers crossing_policy_installed", async () => {
    const rules = rulesFor(exampleModel(), { crossingPolicyInstalled: true });
    const limits = { maxToolActionsPerInvocation: 0, maxConcurrentToolActionsPerInvocation: 0 };
    const { core, store } = await openCore(exampleModel(), { rules, limits });
    await expectRefusedAdmit(
      core.port,
      store,
      requestFor(FIRST_INVOCATION, "a"),
      "crossing_policy_installed",
    );
  });

  it("9: the total limit is checked before the concurrent limit", async () => {
    const limits = { maxToolActionsPerInvocation: 1, maxConcurrentToolActionsPerInvocation: 1 };
    const { core, store } = await openCore(exampleModel(), { limits });
    await expectAdmitted(core.port, requestFor(FIRST_INVOCATION, "a", { targetAddresses: portal }));
    await expectRefusedAdmit(core.port, store, requestFor(FIRST_INVOCATION, "b"), "action_limit_exhausted");
  });
});

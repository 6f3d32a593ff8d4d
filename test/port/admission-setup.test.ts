import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EXAMPLE, exampleManifest } from "../helpers/example.js";
import { requestFor } from "../helpers/tool-requests.js";
import { modelWithDuplicateBindings, modelWithSharedTimeBoundProbe } from "./support/core.js";
import { attemptOrder, oneInvocation } from "./support/invocation.js";
import { expectAdmitted, expectRefusedAdmit } from "./support/refusals.js";

/** docs/design.md §5 rules 4 (duplicate bindings), 6, 7, 8b, 9 and 10 through the real manager and port. */
describe("admission rules that need another model, manifest, policy or store state", () => {
  const modelCases = [
    [
      "rule 4: two compiled bindings for the same affordance and action",
      modelWithDuplicateBindings(),
      "affordance_unbound",
    ],
    [
      "rule 6: the action contract has a shared-time binding",
      modelWithSharedTimeBoundProbe(),
      "shared_time_bound",
    ],
  ] as const;
  for (const [label, model, code] of modelCases) {
    it(`${label} is ${code}`, async () => {
      await oneInvocation(
        {
          model,
          body: async (port, { store }) =>
            expectRefusedAdmit(port, store, requestFor(port, "a"), code, label),
        },
        async ({ events, invocationId, store }) => {
          assert.deepEqual(attemptOrder(events, invocationId), ["outer"]);
          assert.deepEqual(await store.listToolActions({ invocationId }), []);
        },
      );
    });
  }

  it("rule 7: the offer must cover every requested target; two covering offers are ambiguous", async () => {
    const narrow = exampleManifest();
    for (const binding of narrow.participant_runtime.execution_bindings)
      binding.target_addresses = [EXAMPLE.portal];
    await oneInvocation(
      {
        manifest: narrow,
        body: async (port, { store }) => {
          const wider = requestFor(port, "b", {
            targetAddresses: [EXAMPLE.portal, "provision.node.wazuh-manager"],
          });
          await expectRefusedAdmit(
            port,
            store,
            wider,
            "no_execution_offer",
            "offer targets must be a superset",
          );
          return expectAdmitted(port, requestFor(port, "a"));
        },
      },
      async ({ events, invocationId }) =>
        assert.deepEqual(attemptOrder(events, invocationId), ["a", "outer"]),
    );
    const doubled = exampleManifest();
    const [offer] = doubled.participant_runtime.execution_bindings;
    doubled.participant_runtime.execution_bindings.push({ ...offer, binding_id: `${offer.binding_id}.copy` });
    await oneInvocation(
      {
        manifest: doubled,
        body: async (port, { store }) =>
          expectRefusedAdmit(port, store, requestFor(port, "a"), "ambiguous_execution_offer"),
      },
      async ({ events, invocationId }) => assert.deepEqual(attemptOrder(events, invocationId), ["outer"]),
    );
  });

  it("rule 8b: an installed participant-crossing policy refuses every admission", async () => {
    await oneInvocation(
      {
        crossingPolicy: { name: "crossing" },
        body: async (port, { store }) => {
          for (const id of ["a", "b", "a"]) {
            await expectRefusedAdmit(port, store, requestFor(port, id), "crossing_policy_installed");
          }
        },
      },
      async ({ events, invocationId, summary }) => {
        assert.deepEqual(attemptOrder(events, invocationId), ["outer"]);
        assert.equal(summary.state, "succeeded", "the outer invocation itself is unaffected");
      },
    );
  });

  it("rule 9: concurrent then total limits; a settled action frees a concurrent slot only", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const ids: string[] = [];
          for (let i = 1; i <= 4; i += 1) ids.push(await expectAdmitted(port, requestFor(port, `c${i}`)));
          await expectRefusedAdmit(port, store, requestFor(port, "c5"), "concurrency_limit_exhausted");
          for (const id of ids) assert.deepEqual(await port.cancel(id), { ok: true });
          for (let i = 5; i <= 16; i += 1) {
            const id = await expectAdmitted(port, requestFor(port, `c${i}`));
            assert.deepEqual(await port.cancel(id), { ok: true });
          }
          await expectRefusedAdmit(port, store, requestFor(port, "c17"), "action_limit_exhausted");
          assert.deepEqual(await port.admit(requestFor(port, "c1")), {
            admitted: true,
            actionInstanceId: ids[0],
          });
        },
      },
      async ({ events, invocationId }) => {
        const order = attemptOrder(events, invocationId);
        assert.deepEqual(order, [...Array.from({ length: 16 }, (_, i) => `c${i + 1}`), "outer"]);
      },
    );
  });

  it("rule 10: a failed claim write is ledger_unavailable and the same request is evaluated afresh", async () => {
    await oneInvocation(
      {
        body: async (port, { store, failing }) => {
          failing.add("insertToolAction");
          await expectRefusedAdmit(port, store, requestFor(port, "a"), "ledger_unavailable");
          await expectRefusedAdmit(
            port,
            store,
            requestFor(port, "a", { targetAddresses: ["provision.node.wazuh-manager"] }),
            "ledger_unavailable",
            "not remembered as a decision",
          );
          failing.clear();
          const first = await expectAdmitted(
            port,
            requestFor(port, "a", { targetAddresses: ["provision.node.wazuh-manager"] }),
          );
          for (const id of ["b", "c", "d"]) await expectAdmitted(port, requestFor(port, id));
          failing.add("insertToolAction");
          await expectRefusedAdmit(
            port,
            store,
            requestFor(port, "e"),
            "concurrency_limit_exhausted",
            "9 before 10",
          );
          failing.clear();
          return first;
        },
      },
      async ({ events, invocationId, value }) => {
        assert.equal(value, `${invocationId}:tool=1`);
        assert.deepEqual(attemptOrder(events, invocationId), ["a", "b", "c", "d", "outer"]);
      },
    );
  });
});

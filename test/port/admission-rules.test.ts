import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EXAMPLE } from "../helpers/example.js";
import { outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { attemptOrder, oneInvocation } from "./support/invocation.js";
import { expectAdmitted, expectRefusedAdmit } from "./support/refusals.js";

/** docs/design.md §5 rules 0 to 5b, each through the real manager and port, in their own invocation. */
describe("admission rules through the real RuntimeManager and port", () => {
  it("rule 0: a malformed request is request_invalid, also before the open check", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const valid = requestFor(port, "shape");
          const { targetAddresses: _omitted, ...missingTargets } = valid;
          const malformed: Record<string, unknown> = {
            "unknown field (tool arguments)": { ...valid, arguments: { url: "http://portal/login" } },
            "tool result field": { ...valid, result: "ok" },
            "missing field": missingTargets,
            "empty tool_call_id": { ...valid, toolCallId: "" },
            "257-character id": { ...valid, toolCallId: "x".repeat(257) },
            "257-character address": { ...valid, toolAffordanceAddress: "a".repeat(257) },
            "numeric tool_call_id": { ...valid, toolCallId: 7 },
            "no targets": { ...valid, targetAddresses: [] },
            "65 targets": { ...valid, targetAddresses: Array(65).fill(EXAMPLE.portal) },
            "targets as a string": { ...valid, targetAddresses: EXAMPLE.portal },
            "an empty target": { ...valid, targetAddresses: [""] },
            "generation as a string": { ...valid, executionGeneration: "1" },
            "fractional generation": { ...valid, executionGeneration: 1.5 },
            null: null,
            array: [valid],
            string: JSON.stringify(valid),
            "class instance": Object.assign(new (class Request {})(), valid),
          };
          for (const [label, request] of Object.entries(malformed)) {
            await expectRefusedAdmit(port, store, request, "request_invalid", label);
          }
          await expectAdmitted(port, { ...valid, toolCallId: "x".repeat(256) });
          await expectAdmitted(port, {
            ...valid,
            toolCallId: "sixty-four",
            targetAddresses: Array(64).fill(EXAMPLE.portal),
          });
        },
      },
      async ({ port, store, events, invocationId }) => {
        const late = { ...requestFor(port, "late"), arguments: {} };
        await expectRefusedAdmit(port, store, late, "request_invalid", "rule 0 is checked before rule 1");
        assert.deepEqual(attemptOrder(events, invocationId), ["x".repeat(256), "sixty-four", "outer"]);
      },
    );
  });

  it("rule 1: every call answers invocation_inactive during attachment and invocation_closed after return", async () => {
    const inactive: string[] = [];
    await oneInvocation(
      {
        onAttach: async (port) => {
          const id = `${port.invocationActionInstanceId}:tool=1`;
          inactive.push(
            ...[
              await port.admit(requestFor(port, "early")),
              await port.dispatch(id),
              await port.complete(id, { status: "succeeded" } as never),
              await port.reportUnknown(id, "timeout"),
              await port.cancel(id),
            ].map((a) => ("refusal" in a ? a.refusal : "accepted")),
          );
        },
        body: async (port) => expectAdmitted(port, requestFor(port, "a")),
      },
      async ({ port, store, value: id, events, invocationId }) => {
        assert.deepEqual(inactive, Array(5).fill("invocation_inactive"));
        assert.ok(id);
        const closed = [
          await port.admit(requestFor(port, "a")),
          await port.admit(requestFor(port, "late")),
          await port.dispatch(id),
          await port.complete(id, { status: "succeeded" } as never),
          await port.reportUnknown(id, "timeout"),
          await port.cancel(id),
        ].map((a) => ("refusal" in a ? a.refusal : "accepted"));
        assert.deepEqual(closed, Array(6).fill("invocation_closed"));
        const [record] = await store.listToolActions({ invocationId });
        assert.equal(
          record?.settlement,
          "withheld",
          "close settled the undispatched action; later calls changed nothing",
        );
        assert.deepEqual(attemptOrder(events, invocationId), ["a", "outer"]);
      },
    );
  });

  it("rule 2: an identical request returns the original decision; a different one is request_conflict", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const original = requestFor(port, "a");
          const first = await port.admit(original);
          const reordered = Object.fromEntries(Object.entries(original).reverse());
          const again = await port.admit(reordered as never);
          assert.equal(JSON.stringify(again), JSON.stringify(first), "byte-for-byte the original decision");
          const [stored] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          const changes: Record<string, unknown> = {
            "more targets": { targetAddresses: [EXAMPLE.portal, "provision.node.wazuh-manager"] },
            "foreign participant (rule 2 precedes rule 3)": {
              participantAddress: "participant.behavior.someone-else",
            },
            "unbound affordance (rule 2 precedes rule 4)": {
              toolAffordanceAddress: `${EXAMPLE.affordance}-x`,
            },
          };
          for (const [label, change] of Object.entries(changes)) {
            await expectRefusedAdmit(
              port,
              store,
              requestFor(port, "a", change as never),
              "request_conflict",
              label,
            );
          }
          const [kept] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.deepEqual(kept, stored, "the original record stays");
          assert.ok(first.admitted);
          await port.dispatch(first.actionInstanceId);
          await port.complete(first.actionInstanceId, outcomeFor(port, first.actionInstanceId));
          const afterSettled = await port.admit(original);
          assert.deepEqual(afterSettled, first, "still the original decision once the action settled");
          return first;
        },
      },
      async ({ events, invocationId, manager, value }) => {
        assert.deepEqual(attemptOrder(events, invocationId), ["a", "outer"]);
        assert.ok(value?.admitted);
        assert.equal((await manager.getOperation(value.actionInstanceId))?.settlement, "succeeded");
      },
    );
  });

  const identityCases: Array<[string, string, (p: { episodeId: string }) => Record<string, unknown>]> = [
    [
      "rule 3: participant",
      "identity_mismatch",
      () => ({ participantAddress: "participant.behavior.someone-else" }),
    ],
    ["rule 3: episode", "identity_mismatch", (p) => ({ episodeId: `${p.episodeId}-other` })],
    [
      "rule 3: implementation",
      "identity_mismatch",
      () => ({ participantImplementationRef: "participant-implementation-manifests.other.v1" }),
    ],
    [
      "rule 3: invocation",
      "identity_mismatch",
      () => ({ invocationActionInstanceId: `${EXAMPLE.policy}:${EXAMPLE.participant}:7` }),
    ],
    [
      "rule 3: scope",
      "identity_mismatch",
      () => ({ executionScopeRef: "participant.autonomous-execution.other" }),
    ],
    ["rule 3b: generation", "generation_mismatch", () => ({ executionGeneration: 2 })],
    [
      "rule 4: unknown affordance",
      "affordance_unbound",
      () => ({ toolAffordanceAddress: `${EXAMPLE.affordance}-x` }),
    ],
    [
      "rule 4: action not bound to the affordance",
      "affordance_unbound",
      () => ({ actionContractAddress: `${EXAMPLE.action}-x` }),
    ],
    [
      "rule 5: boundary outside the binding",
      "boundary_outside_binding",
      () => ({ observationBoundaryAddress: `${EXAMPLE.boundary}-x` }),
    ],
    [
      "rule 5b: one target outside the binding",
      "target_outside_binding",
      () => ({ targetAddresses: [EXAMPLE.portal, "provision.node.customer-db"] }),
    ],
  ];
  for (const [label, code, change] of identityCases) {
    it(`${label} is ${code}; a valid request with the same id is then admitted afresh`, async () => {
      await oneInvocation(
        {
          body: async (port, { store }) => {
            await expectRefusedAdmit(port, store, requestFor(port, "a", change(port) as never), code, label);
            return expectAdmitted(port, requestFor(port, "a"));
          },
        },
        async ({ events, invocationId, value }) => {
          assert.equal(value, `${invocationId}:tool=1`, "the refusal consumed no admission ordinal");
          assert.deepEqual(attemptOrder(events, invocationId), ["a", "outer"]);
        },
      );
    });
  }
});

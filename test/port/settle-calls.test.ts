import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InvocationToolActionPort } from "../../src/index.js";
import { modelStartingAt } from "../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { attemptOrder, oneInvocation } from "./support/invocation.js";
import { expectAdmitted } from "./support/refusals.js";

type Settle = (port: InvocationToolActionPort, id: string) => Promise<unknown>;

const settleAs: Record<string, Settle> = {
  succeeded: async (port, id) => {
    await port.dispatch(id);
    return port.complete(id, outcomeFor(port, id));
  },
  failed: async (port, id) => {
    await port.dispatch(id);
    return port.complete(id, outcomeFor(port, id, { status: "failed" }));
  },
  partial_success: async (port, id) => {
    await port.dispatch(id);
    return port.complete(id, outcomeFor(port, id, { status: "partial_success" }));
  },
  withheld: (port, id) => port.cancel(id),
  indeterminate: async (port, id) => {
    await port.dispatch(id);
    return port.reportUnknown(id, "timeout");
  },
};

describe("calls on actions in the wrong state, with bad outcomes, or when the store fails", () => {
  for (const [settlement, settle] of Object.entries(settleAs)) {
    it(`on an action settled ${settlement}, dispatch/complete/reportUnknown/cancel are state_conflict`, async () => {
      await oneInvocation(
        {
          body: async (port, { store }) => {
            const id = await expectAdmitted(port, requestFor(port, "a"));
            assert.equal(codeOf((await settle(port, id)) as never), "ok");
            const settled = await store.getToolAction(id);
            assert.equal(settled?.settlement, settlement);
            const answers = [
              await port.dispatch(id),
              await port.complete(id, outcomeFor(port, id)),
              await port.complete(id, outcomeFor(port, id, { status: "failed" })),
              await port.reportUnknown(id, "timeout"),
              await port.cancel(id),
            ];
            assert.deepEqual(answers.map(codeOf), Array(5).fill("state_conflict"));
            assert.deepEqual(await store.getToolAction(id), settled, "nothing changed");
          },
        },
        async ({ events, invocationId }) => {
          const observed = events.find(
            (e) => e.event_type === "observation_emitted" && e.invocation_tool_context,
          );
          assert.equal(observed?.invocation_tool_context?.settlement, settlement);
          assert.deepEqual(attemptOrder(events, invocationId), ["a", "outer"]);
        },
      );
    });
  }

  it("complete checks the outcome; each invalid one is outcome_invalid and changes nothing", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          const other = await expectAdmitted(port, requestFor(port, "b"));
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          const before = await store.getToolAction(id);
          const { status: _omitted, ...noStatus } = outcomeFor(port, id);
          const invalid: Record<string, unknown> = {
            "failure class the contract does not declare": outcomeFor(port, id, {
              status: "failed",
              failureClass: "tired",
            }),
            "another participant": outcomeFor(port, id, {
              participantAddress: "participant.behavior.someone-else",
            }),
            "another episode": outcomeFor(port, id, { episodeId: `${port.episodeId}-x` }),
            "another action's id": outcomeFor(port, id, { actionInstanceId: other }),
            "another action contract": outcomeFor(port, id, {
              actionContractAddress: "participant.action-contract.x",
            }),
            "status withheld": outcomeFor(port, id, { status: "withheld" }),
            "status unknown": outcomeFor(port, id, { status: "unknown" }),
            "no status": noStatus,
            "a tool result field": { ...outcomeFor(port, id), result: { body: "<html>" } },
            "evidence refs not a list": outcomeFor(port, id, {
              evidenceRefs: "content.participant-observation",
            }),
            "not an object": "succeeded",
            undefined: undefined,
          };
          for (const [label, outcome] of Object.entries(invalid)) {
            assert.equal(codeOf(await port.complete(id, outcome as never)), "outcome_invalid", label);
            assert.deepEqual(await store.getToolAction(id), before, `${label}: the record is unchanged`);
          }
          const declared = outcomeFor(port, id, {
            status: "failed",
            failureClass: "authority_denied",
            evidenceRefs: ["content.participant-observation", "content.wazuh-evidence"],
          });
          assert.equal(codeOf(await port.complete(id, declared)), "ok");
        },
      },
      async ({ events }) => {
        const observed = events.find(
          (e) => e.event_type === "observation_emitted" && e.invocation_tool_context,
        );
        assert.deepEqual(observed?.action_result, {
          participant_address: "participant.behavior.participant-agent",
          episode_id: "participant.behavior.participant-agent-autonomous-0",
          action_instance_id:
            "participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:0:tool=1",
          action_contract_address: "participant.action-contract.probe-customer-portal-login",
          observation_point: "time.clock.scenario-clock@segment=0,tick=10",
          status: "failed",
          failure_class: "authority_denied",
          evidence_refs: ["content.participant-observation", "content.wazuh-evidence"],
        });
      },
    );
  });

  it("reportUnknown without a usable reason is refused and changes nothing", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          const before = await store.getToolAction(id);
          const report = port.reportUnknown as (
            id: string,
            reason?: unknown,
          ) => ReturnType<typeof port.reportUnknown>;
          for (const reason of [undefined, "", "r".repeat(257), 42, null]) {
            assert.equal(codeOf(await report(id, reason)), "request_invalid", `reason ${String(reason)}`);
            assert.deepEqual(await store.getToolAction(id), before);
          }
          assert.equal(codeOf(await port.reportUnknown(id, "timeout")), "ok");
          assert.equal((await store.getToolAction(id))?.unknownReason, "timeout");
        },
      },
      async ({ manager, invocationId }) => {
        assert.equal((await manager.getOperation(`${invocationId}:tool=1`))?.state, "indeterminate");
      },
    );
  });

  const writes: Array<
    [string, string, (port: InvocationToolActionPort, id: string) => Promise<unknown>, string]
  > = [
    ["dispatch", "admitted", (port, id) => port.dispatch(id), "accepted"],
    ["cancel", "admitted", (port, id) => port.cancel(id), "ok"],
    ["complete", "dispatched", (port, id) => port.complete(id, outcomeFor(port, id)), "ok"],
    ["reportUnknown", "dispatched", (port, id) => port.reportUnknown(id, "timeout"), "ok"],
  ];
  for (const [method, phase, call, success] of writes) {
    it(`${method} whose durable write fails is ledger_unavailable; the action stays ${phase} and works after recovery`, async () => {
      await oneInvocation(
        {
          body: async (port, { store, failing }) => {
            const id = await expectAdmitted(port, requestFor(port, "a"));
            if (phase === "dispatched") assert.equal(codeOf(await port.dispatch(id)), "accepted");
            const before = await store.getToolAction(id);
            failing.add("updateToolAction");
            assert.equal(codeOf((await call(port, id)) as never), "ledger_unavailable");
            assert.equal(codeOf((await call(port, id)) as never), "ledger_unavailable", "still unavailable");
            assert.deepEqual(await store.getToolAction(id), before, "the record did not move");
            assert.equal((await store.getToolAction(id))?.phase, phase);
            failing.clear();
            assert.equal(
              codeOf((await call(port, id)) as never),
              success,
              "works once the store writes again",
            );
            return id;
          },
        },
        async ({ store, value }) => {
          const record = await store.getToolAction(value ?? "");
          assert.equal(record?.phase, "settled");
        },
      );
    });
  }

  it("ids this invocation never admitted are unknown_action, including the previous invocation's ids", async () => {
    let previous = "";
    let answers: string[] = [];
    await oneInvocation(
      {
        model: modelStartingAt(10, 10),
        body: async (port) => {
          if (previous === "") {
            previous = await expectAdmitted(port, requestFor(port, "a"));
            assert.equal(codeOf(await port.dispatch(previous)), "accepted");
            assert.equal(codeOf(await port.complete(previous, outcomeFor(port, previous))), "ok");
            return;
          }
          const calls = (id: unknown) => [
            port.dispatch(id as string),
            port.complete(id as string, outcomeFor(port, String(id))),
            port.reportUnknown(id as string, "timeout"),
            port.cancel(id as string),
          ];
          const sameOrdinal = `${port.invocationActionInstanceId}:tool=1`;
          const all = await Promise.all(
            [previous, sameOrdinal, "", 1, undefined, { id: previous }].flatMap(calls),
          );
          answers = all.map(codeOf);
        },
      },
      async ({ manager, invocationId }) => {
        assert.equal(previous, `${invocationId}:tool=1`);
        const { invocations } = await manager.step(1);
        assert.equal(invocations.length, 1, "a second invocation ran");
        assert.deepEqual(answers, Array(24).fill("unknown_action"));
        assert.deepEqual(invocations[0]?.toolActions, [], "the second invocation has no tool action");
        assert.equal(
          (await manager.getOperation(previous))?.settlement,
          "succeeded",
          "the earlier action is untouched",
        );
      },
    );
  });
});

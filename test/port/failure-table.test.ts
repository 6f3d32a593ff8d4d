import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HistoryEvent } from "../../src/index.js";
import { EXAMPLE } from "../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { attemptOrder, type ClosedInvocation, oneInvocation } from "./support/invocation.js";
import { expectAdmitted, expectRefusedAdmit } from "./support/refusals.js";

function observationOf(events: readonly HistoryEvent[], toolCallId: string): HistoryEvent | undefined {
  return events.find(
    (e) => e.event_type === "observation_emitted" && e.invocation_tool_context?.tool_call_id === toolCallId,
  );
}

/** Asserts a tool action's operation, history settlement and the scheduler after close. */
async function expectSettled(
  closed: ClosedInvocation<unknown>,
  toolCallId: string,
  settlement: string,
  operationState: string,
): Promise<void> {
  const observed = observationOf(closed.events, toolCallId);
  assert.ok(observed, `${toolCallId} has a history triple`);
  assert.equal(observed.invocation_tool_context?.settlement, settlement);
  const operation = await closed.manager.getOperation(observed.action_instance_id);
  assert.equal(operation?.settlement, settlement);
  assert.equal(operation?.state, operationState);
  assert.equal(operation?.parentId, closed.invocationId);
}

function schedulerOf(closed: ClosedInvocation<unknown>) {
  return closed.manager.schedulers().find((s) => s.participantAddress === EXAMPLE.participant);
}

/** The failure table of docs/design.md §5, one test per row. */
describe("failure table", () => {
  it("same tool_call_id and same request: the port returns the original decision", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const first = await port.admit(requestFor(port, "a"));
          const answers = [await port.admit(requestFor(port, "a")), await port.admit(requestFor(port, "a"))];
          for (const again of answers) assert.equal(JSON.stringify(again), JSON.stringify(first));
          assert.ok(first.admitted);
          assert.equal(codeOf(await port.dispatch(first.actionInstanceId)), "accepted");
          assert.equal(
            codeOf(await port.complete(first.actionInstanceId, outcomeFor(port, first.actionInstanceId))),
            "ok",
          );
        },
      },
      async (closed) => {
        assert.equal((await closed.store.listToolActions({ invocationId: closed.invocationId })).length, 1);
        assert.deepEqual(attemptOrder(closed.events, closed.invocationId), ["a", "outer"]);
        await expectSettled(closed, "a", "succeeded", "succeeded");
      },
    );
  });

  it("same tool_call_id and a different request: request_conflict, the original record stays", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          const other = requestFor(port, "a", {
            targetAddresses: [EXAMPLE.portal, "provision.node.wazuh-manager"],
          });
          await expectRefusedAdmit(port, store, other, "request_conflict");
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          await expectRefusedAdmit(port, store, other, "request_conflict", "still refused while dispatched");
          assert.equal(
            codeOf(await port.complete(id, outcomeFor(port, id, { status: "partial_success" }))),
            "ok",
          );
        },
      },
      async (closed) => {
        const [record] = await closed.store.listToolActions({ invocationId: closed.invocationId });
        assert.deepEqual(record?.request.targetAddresses, [EXAMPLE.portal]);
        assert.deepEqual(attemptOrder(closed.events, closed.invocationId), ["a", "outer"]);
        await expectSettled(closed, "a", "partial_success", "succeeded");
      },
    );
  });

  it("cancel before dispatch: the action settles withheld and never ran", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.cancel(id)), "ok");
          assert.equal(codeOf(await port.dispatch(id)), "state_conflict");
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "withheld", "cancelled");
        const attempted = closed.events.find(
          (e) => e.event_type === "action_attempted" && e.invocation_tool_context,
        );
        assert.equal(attempted?.lifecycle_phase, "selection_or_admission", "a withheld action never started");
        assert.equal(observationOf(closed.events, "a")?.action_result?.status, "withheld");
        assert.equal(schedulerOf(closed)?.lifecycle, "running");
      },
    );
  });

  it("cancel after dispatch: state_conflict; the action must be completed or reported unknown", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          assert.equal(codeOf(await port.cancel(id)), "state_conflict");
          const failed = outcomeFor(port, id, { status: "failed", failureClass: "target_unavailable" });
          assert.equal(codeOf(await port.complete(id, failed)), "ok");
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "failed", "failed");
        assert.equal(observationOf(closed.events, "a")?.action_result?.failure_class, "target_unavailable");
      },
    );
  });

  it("report_unknown after dispatch: indeterminate, orphaned_action, status unknown, scheduler stopped", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          assert.equal(codeOf(await port.reportUnknown(id, "timeout")), "ok");
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "indeterminate", "indeterminate");
        const [record] = await closed.store.listToolActions({ phase: "settled" });
        assert.equal(record?.unknownReason, "timeout", "the harness's own reason is kept");
        const observed = observationOf(closed.events, "a");
        assert.equal(observed?.observation_status, "orphaned_action");
        assert.equal(observed?.action_result?.status, "unknown");
        assert.equal(schedulerOf(closed)?.lifecycle, "stopped");
        const stored = await closed.store.getScheduler(EXAMPLE.participant, EXAMPLE.policy);
        assert.equal(stored?.stopReason, "tool_action_indeterminate");
        assert.equal(
          (await closed.manager.step(3)).invocations.length,
          0,
          "no action runs on a stopped scheduler",
        );
      },
    );
  });

  it("an outcome with withheld or undeclared evidence or a foreign observation point: outcome_invalid, nothing changes", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const id = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.dispatch(id)), "accepted");
          const before = await store.getToolAction(id);
          const invalid: Record<string, Record<string, unknown>> = {
            "hidden evidence": { evidenceRefs: ["content.evaluator-notes"] },
            "undeclared evidence": { evidenceRefs: ["content.no-such-evidence"] },
            "one bad ref among good": {
              evidenceRefs: ["content.participant-observation", "content.evaluator-notes"],
            },
            "foreign observation point": { observationPoint: `${port.observationPoint}0` },
          };
          for (const [label, change] of Object.entries(invalid)) {
            assert.equal(
              codeOf(await port.complete(id, outcomeFor(port, id, change))),
              "outcome_invalid",
              label,
            );
            assert.deepEqual(await store.getToolAction(id), before, `${label}: the record is unchanged`);
          }
          assert.equal(codeOf(await port.reportUnknown(id, "evidence could not be attributed")), "ok");
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "indeterminate", "indeterminate");
        assert.equal(observationOf(closed.events, "a")?.action_result?.evidence_refs, undefined);
      },
    );
  });

  it("the invocation returns with undispatched actions: they settle withheld", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          await expectAdmitted(port, requestFor(port, "a"));
          await expectAdmitted(port, requestFor(port, "b"));
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "withheld", "cancelled");
        await expectSettled(closed, "b", "withheld", "cancelled");
        assert.deepEqual(attemptOrder(closed.events, closed.invocationId), ["a", "b", "outer"]);
        assert.equal(schedulerOf(closed)?.lifecycle, "running");
      },
    );
  });

  it("the invocation returns with dispatched actions and no outcome: they settle indeterminate", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const a = await expectAdmitted(port, requestFor(port, "a"));
          await expectAdmitted(port, requestFor(port, "b"));
          assert.equal(codeOf(await port.dispatch(a)), "accepted");
        },
      },
      async (closed) => {
        await expectSettled(closed, "a", "indeterminate", "indeterminate");
        await expectSettled(closed, "b", "withheld", "cancelled");
        assert.equal(observationOf(closed.events, "a")?.observation_status, "orphaned_action");
        assert.deepEqual(attemptOrder(closed.events, closed.invocationId), ["a", "b", "outer"]);
        assert.equal(schedulerOf(closed)?.lifecycle, "stopped");
        assert.equal(closed.summary.state, "succeeded", "the outer invocation itself succeeded");
        // The record says why its effects are unknown, as recovery's runtime_interrupted does.
        const reasons = (await closed.store.listToolActions({ phase: "settled" })).map((r) => [
          r.toolCallId,
          r.unknownReason,
        ]);
        assert.deepEqual(reasons, [
          ["a", "invocation_returned_without_outcome"],
          ["b", undefined],
        ]);
      },
    );
  });

  it("a call after the invocation returns: invocation_closed, for every method", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const a = await expectAdmitted(port, requestFor(port, "a"));
          assert.equal(codeOf(await port.dispatch(a)), "accepted");
          assert.equal(codeOf(await port.complete(a, outcomeFor(port, a))), "ok");
          return [a, await expectAdmitted(port, requestFor(port, "b"))];
        },
      },
      async (closed) => {
        const { port, value } = closed;
        const [a = "", b = ""] = value ?? [];
        const answers = await Promise.all([
          port.admit(requestFor(port, "a")),
          port.admit(requestFor(port, "c")),
          port.dispatch(b),
          port.complete(b, outcomeFor(port, b)),
          port.reportUnknown(b, "timeout"),
          port.cancel(a),
        ]);
        assert.deepEqual(answers.map(codeOf), Array(6).fill("invocation_closed"));
        await expectSettled(closed, "a", "succeeded", "succeeded");
        await expectSettled(closed, "b", "withheld", "cancelled");
        const history = (await closed.manager.history()).filter((e) => e.invocation_tool_context);
        assert.equal(history.length, 6, "late calls added no history");
      },
    );
  });
});

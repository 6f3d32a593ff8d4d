import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ParticipantActionRequest, ReferenceAutonomousParticipantRuntime } from "../../src/index.js";
import { EXAMPLE } from "../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { attemptOrder, type OuterResultBuilder, oneInvocation } from "./support/invocation.js";
import { expectAdmitted } from "./support/refusals.js";

function validResult(runtime: ReferenceAutonomousParticipantRuntime, request: ParticipantActionRequest) {
  return runtime.nativeExecution(
    request,
    {
      clockAddress: "",
      segment: 0,
      tick: 0,
      episodeId: request.episodeId,
      executionGeneration: 1,
      attempts: 1,
    },
    request.episodeId,
    { status: "succeeded" },
  );
}

const invalidResults: Record<string, OuterResultBuilder | "throw" | "throw a string"> = {
  "raises an Error": "throw",
  "raises a non-Error value": "throw a string",
  "returns a result for another action instance": (runtime, request) => ({
    ...validResult(runtime, request),
    actionInstanceId: `${request.actionInstanceId}0`,
  }),
  "returns a result of another participant": (runtime, request) => ({
    ...validResult(runtime, request),
    participantAddress: "participant.behavior.someone-else",
  }),
  "returns a status of the wrong type": (runtime, request) => ({
    ...validResult(runtime, request),
    status: 42,
  }),
  "returns a status that is not terminal": (runtime, request) => ({
    ...validResult(runtime, request),
    status: "unknown",
  }),
  "returns a result without a post-state digest": (runtime, request) => {
    const { postStateDigest: _dropped, ...rest } = validResult(runtime, request);
    return rest;
  },
  "returns hidden evidence": (runtime, request) => ({
    ...validResult(runtime, request),
    evidenceRefs: ["content.evaluator-notes"],
  }),
  "returns undefined": () => undefined,
};

/** Failure table: "The invocation raises or returns an invalid result: tool history commits, the outer attempt is consumed." */
describe("an invocation that raises or returns an invalid result", () => {
  for (const [label, outcome] of Object.entries(invalidResults)) {
    it(`${label}: tool history commits, the outer operation fails, no outer triple`, async () => {
      await oneInvocation(
        {
          body: async (port) => {
            const a = await expectAdmitted(port, requestFor(port, "a"));
            assert.equal(codeOf(await port.dispatch(a)), "accepted");
            assert.equal(codeOf(await port.complete(a, outcomeFor(port, a))), "ok");
            const b = await expectAdmitted(port, requestFor(port, "b"));
            assert.equal(codeOf(await port.dispatch(b)), "accepted");
            await expectAdmitted(port, requestFor(port, "c"));
            if (outcome === "throw") throw new Error("the agent crashed");
            if (outcome === "throw a string") throw "the agent crashed";
          },
          ...(typeof outcome === "function" ? { outer: outcome } : { bodyThrows: true }),
        },
        async ({ manager, store, events, invocationId, summary }) => {
          assert.deepEqual(
            attemptOrder(events, invocationId),
            ["a", "b", "c"],
            "tool triples only, in admission order",
          );
          assert.equal(events.length, 9);
          const settlements = events
            .filter((e) => e.event_type === "observation_emitted")
            .map((e) => e.invocation_tool_context?.settlement);
          assert.deepEqual(settlements, ["succeeded", "indeterminate", "withheld"]);
          const outer = await manager.getOperation(invocationId);
          assert.equal(outer?.state, "failed");
          assert.equal(outer?.kind, "scheduler_invocation");
          assert.equal(summary.state, "failed");
          assert.equal(summary.outerStatus, undefined);
          assert.notEqual(summary.error, undefined);
          if (outcome === "throw") assert.equal((summary.error as Error).message, "the agent crashed");
          if (outcome === "throw a string") assert.equal(summary.error, "the agent crashed");
          const scheduler = await store.getScheduler(EXAMPLE.participant, EXAMPLE.policy);
          assert.equal(scheduler?.attempts, 1, "the outer attempt is consumed");
          assert.equal(scheduler?.nextOrdinal, 1, "the outer ordinal is consumed");
          assert.equal(scheduler?.lifecycle, "stopped");
          assert.equal(
            scheduler?.stopReason,
            "tool_action_indeterminate",
            "the indeterminate action stops it",
          );
          assert.deepEqual(await store.listOpenInvocations(), [], "nothing is left running");
        },
      );
    });
  }

  it("with nothing admitted: no history at all, the attempt is consumed, the failure policy stops", async () => {
    await oneInvocation(
      {
        body: async () => {
          throw new Error("the agent crashed before any tool call");
        },
        bodyThrows: true,
      },
      async ({ manager, store, events, invocationId, summary }) => {
        assert.equal((summary.error as Error).message, "the agent crashed before any tool call");
        assert.deepEqual(events, []);
        assert.equal((await manager.getOperation(invocationId))?.state, "failed");
        const scheduler = await store.getScheduler(EXAMPLE.participant, EXAMPLE.policy);
        assert.equal(scheduler?.attempts, 1);
        assert.equal(scheduler?.stopReason, "failure_policy", "the example's failure_policy is stop");
      },
    );
  });
});

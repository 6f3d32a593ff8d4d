import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callTool, type Harness, HarnessRuntime, ToolTimeoutError } from "../../examples/seed-harness.js";
import {
  type InvocationSummary,
  MemoryControlPlaneStore,
  RuntimeManager,
  resolveToolAction,
} from "../../src/index.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "../helpers/example.js";

/** A harness whose turn makes the calls `plan` lists, through `callTool` of examples/seed-harness.ts. */
function plannedHarness(plan: ReadonlyArray<[string, "ok" | "fail" | "timeout" | "crash"]>) {
  const ran: string[] = [];
  const results: string[][] = [];
  const harness: Harness = {
    async run(_request, port) {
      assert.ok(port, "the example claims the composition, so the harness gets a port");
      const turn: string[] = [];
      results.push(turn);
      for (const [mcpId, behave] of plan) {
        turn.push(
          await callTool(port, mcpId, async () => {
            ran.push(mcpId);
            if (behave === "timeout") throw new ToolTimeoutError(`${mcpId} timed out`);
            if (behave === "crash") throw new Error(`${mcpId} crashed the agent`);
            return behave === "ok";
          }),
        );
      }
      return { status: turn.every((r) => r === "succeeded") ? "succeeded" : "partial_success" };
    },
  };
  return { harness, ran, results };
}

describe("examples/seed-harness.ts in a real manager", () => {
  it("a successful, a failing and a timed-out call: history, operations, scheduler stopped", async () => {
    const { harness, ran, results } = plannedHarness([
      ["mcp-1", "ok"],
      ["mcp-2", "fail"],
      ["mcp-3", "timeout"],
      ["mcp-1", "ok"],
    ]);
    const store = new MemoryControlPlaneStore();
    const closed: InvocationSummary[] = [];
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(10),
      manifest: exampleManifest(),
      runtime: new HarnessRuntime(harness),
      store,
      observer: { invocationClosed: (s) => closed.push(s) },
    });
    try {
      // The cadence's start tick runs at open.
      const [summary] = closed;
      assert.ok(summary);
      const outer = summary.invocationId;
      assert.deepEqual(results, [["succeeded", "failed", "unknown", "refused"]]);
      assert.deepEqual(ran, ["mcp-1", "mcp-2", "mcp-3"], "a repeated call id is never run twice");

      const events = await manager.history({ participant: EXAMPLE.participant });
      const attempted = events.filter((e) => e.event_type === "action_attempted");
      assert.deepEqual(
        attempted.map((e) => e.invocation_tool_context?.tool_call_id ?? e.action_instance_id),
        ["mcp-1", "mcp-2", "mcp-3", outer],
      );
      const observed = events.filter((e) => e.event_type === "observation_emitted");
      assert.deepEqual(
        observed.map((e) => [e.action_result?.status, e.observation_status]),
        [
          ["succeeded", "terminal"],
          ["failed", "terminal"],
          ["unknown", "orphaned_action"],
          ["partial_success", "terminal"],
        ],
      );
      assert.ok(
        events.slice(0, 9).every((e) => e.invocation_tool_context?.invocation_action_instance_id === outer),
      );

      const operations = await Promise.all([1, 2, 3].map((n) => manager.getOperation(`${outer}:tool=${n}`)));
      assert.deepEqual(
        operations.map((o) => [o?.kind, o?.parentId, o?.state, o?.settlement]),
        [
          ["tool_action", outer, "succeeded", "succeeded"],
          ["tool_action", outer, "failed", "failed"],
          ["tool_action", outer, "indeterminate", "indeterminate"],
        ],
      );
      assert.equal((await manager.getOperation(outer))?.state, "succeeded");
      assert.equal(await manager.getOperation(`${outer}:tool=4`), undefined);

      const [scheduler] = manager.schedulers();
      assert.equal(scheduler?.lifecycle, "stopped");
      assert.equal(scheduler?.stopReason, "tool_action_indeterminate");
      assert.equal((await manager.step(2)).invocations.length, 0, "a stopped scheduler runs nothing");
      await assert.rejects(manager.resumeParticipant(EXAMPLE.participant), {
        code: "runtime.unresolved-indeterminate-actions",
      });

      await resolveToolAction(store, `${outer}:tool=3`, {
        resolution: "effect_absent",
        note: "portal logs show no login",
      });
      assert.equal((await manager.getOperation(`${outer}:tool=3`))?.resolution?.resolution, "effect_absent");
      await manager.resumeParticipant(EXAMPLE.participant);
      const next = await manager.step(1);
      assert.equal(next.invocations.length, 1, "resumed after explicit resolution");
      assert.deepEqual(
        ran,
        ["mcp-1", "mcp-2", "mcp-3", "mcp-1", "mcp-2", "mcp-3"],
        "a new invocation, new calls",
      );
    } finally {
      await manager.close();
    }
  });

  it("a tool that crashes the agent mid-call: the dispatched action is indeterminate, the outer attempt failed", async () => {
    const { harness, ran } = plannedHarness([
      ["mcp-1", "ok"],
      ["mcp-2", "crash"],
    ]);
    const closed: InvocationSummary[] = [];
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(10),
      manifest: exampleManifest(),
      runtime: new HarnessRuntime(harness),
      observer: { invocationClosed: (s) => closed.push(s) },
    });
    try {
      const [summary] = closed;
      assert.ok(summary);
      assert.deepEqual(ran, ["mcp-1", "mcp-2"]);
      assert.equal(summary.state, "failed");
      assert.deepEqual(
        summary.toolActions.map((a) => a.settlement),
        ["succeeded", "indeterminate"],
      );
      const attempted = (await manager.history()).filter((e) => e.event_type === "action_attempted");
      assert.deepEqual(
        attempted.map((e) => e.invocation_tool_context?.tool_call_id),
        ["mcp-1", "mcp-2"],
        "tool history committed, no outer triple",
      );
      assert.equal((await manager.getOperation(summary.invocationId))?.state, "failed");
      assert.equal(manager.schedulers()[0]?.stopReason, "tool_action_indeterminate");
    } finally {
      await manager.close();
    }
  });
});

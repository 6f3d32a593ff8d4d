import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../../src/index.js";
import type { InvocationToolActionPort } from "../../../src/port/index.js";
import { oneToolCall, requestFor } from "../../helpers/tool-requests.js";
import { v2Manifest } from "./harness.js";
import { compileFile, V2_EXAMPLE } from "./trace.js";

const CONTROL = {
  controlId: "green-activity-policy",
  namespace: "green-activity",
  publicSeed: "42".repeat(32),
};

/** Makes tool calls on each attempt's port; the first attempt fails retryably; `stall` leaves one dispatched. */
class ToolingV2 extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  readonly ports: InvocationToolActionPort[] = [];
  readonly toolIds: string[][] = [];
  constructor(readonly stall = false) {
    super();
  }
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.ports.push(port);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.ports.at(-1);
    if (!port) throw new Error("no port attached");
    const ids = [await oneToolCall(port, "call-1"), await oneToolCall(port, "call-2")];
    if (this.stall) {
      const decision = await port.admit(requestFor(port, "stalled"));
      if (decision.admitted) await port.dispatch(decision.actionInstanceId);
    }
    this.toolIds.push(ids);
    const first = this.toolIds.length === 1;
    return this.nativeExecution(
      request,
      snapshot,
      context.episodeId,
      first ? { status: "failed", failureClass: "target_unavailable" } : { status: "succeeded" },
    );
  }
}

async function open(runtime: ToolingV2): Promise<RuntimeManager> {
  return RuntimeManager.open({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime,
    stochasticControls: [CONTROL],
  });
}

describe("tool actions under v2", () => {
  it("one port per attempt (a retry gets a new one); tool ids are <attempt id>:tool=<n>", async () => {
    const runtime = new ToolingV2();
    const manager = await open(runtime);
    try {
      await manager.step(3);
      const attempts = runtime.ports.map((p) => p.invocationActionInstanceId);
      assert.ok(attempts.length >= 2);
      assert.match(attempts[0] ?? "", /:occurrence=0:retry=0$/);
      assert.match(attempts[1] ?? "", /:occurrence=0:retry=1$/, "the failed first attempt is retried");
      assert.notEqual(runtime.ports[0], runtime.ports[1]);
      for (const [i, ids] of runtime.toolIds.entries())
        assert.deepEqual(ids, [`${attempts[i]}:tool=1`, `${attempts[i]}:tool=2`]);
      const events = await manager.history();
      const toolEvents = events.filter((e) => e.invocation_tool_context !== undefined);
      assert.equal(toolEvents.length, runtime.toolIds.flat().length * 3);
      for (const e of toolEvents) {
        assert.equal(
          e.activity_provenance?.attempt_id,
          e.invocation_tool_context?.invocation_action_instance_id,
        );
      }
      const retryEvent = events.find((e) => e.activity_provenance?.attempt_id === attempts[1]);
      assert.equal(retryEvent?.activity_provenance?.predecessor_attempt_id, attempts[0]);
      assert.equal(retryEvent?.activity_provenance?.timing_disposition, "retry");
    } finally {
      await manager.close();
    }
  });

  it("an indeterminate tool action stops the v2 scheduler as under v1", async () => {
    const runtime = new ToolingV2(true);
    const manager = await open(runtime);
    try {
      await manager.step(3);
      const [scheduler] = manager.schedulers();
      assert.equal(scheduler?.lifecycle, "stopped");
      assert.equal(scheduler?.stopReason, "tool_action_indeterminate");
      const made = runtime.ports.length;
      assert.equal(made, 1, "nothing runs after the stop, not even the rest of the burst");
      await manager.step(20);
      assert.equal(runtime.ports.length, made);
    } finally {
      await manager.close();
    }
  });
});

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
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../../src/store/index.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
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

async function open(
  runtime: ReferenceAutonomousParticipantRuntime,
  store?: ControlPlaneStore,
): Promise<RuntimeManager> {
  return RuntimeManager.open({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime,
    stochasticControls: [CONTROL],
    ...(store ? { store, log: () => undefined } : {}),
  });
}

/** One admitted call per attempt, then a failed outcome; nothing dispatched. */
class AdmitsOne extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  #port: InvocationToolActionPort | undefined;
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#port = port;
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    if (this.#port) await this.#port.admit(requestFor(this.#port, "lost"));
    return this.nativeExecution(request, snapshot, context.episodeId, { status: "succeeded" });
  }
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

  it("a claim whose answer was lost and whose close could not read it back: this process's recovery settles it as not run", async () => {
    const memory = new MemoryControlPlaneStore();
    const insert = memory.insertToolAction.bind(memory);
    let lost = false;
    // The first claim commits but its caller hears a failure; the store then cannot read it back.
    memory.insertToolAction = async (...args) => {
      await insert(...args);
      if (lost) return;
      lost = true;
      throw new Error("connection terminated after COMMIT");
    };
    const store = aroundStoreMethod(memory, "getToolAction", () =>
      Promise.reject(new Error("connection terminated")),
    );
    const manager = await open(new AdmitsOne(), store);
    try {
      // The first occurrence falls due a few ticks in; its close fails.
      let failure = "";
      for (let i = 0; i < 10 && failure === ""; i += 1)
        failure = await manager.step(1).then(
          () => "",
          (error: Error) => error.message,
        );
      assert.match(
        failure,
        /^store unavailable: the store could not say whether the claim .* \(its answer was lost\)/,
      );
      await manager.step(1);
      const claim = (await memory.listToolActions({})).find((a) => a.toolCallId === "lost");
      assert.equal(
        `${claim?.phase}:${claim?.settlement}:${claim?.withheldReason}`,
        "settled:withheld:claim_unanswered",
      );
    } finally {
      await manager.close();
    }
  });
});

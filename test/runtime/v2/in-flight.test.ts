import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import type { InvocationSummary } from "../../../src/runtime/index.js";
import { ROOT } from "../../helpers/example.js";
import { EveryKthFails, firstDifference, linesOf, v2Manifest } from "./harness.js";
import { compileFile, readTrace } from "./trace.js";

const RECORDED = join(ROOT, "test", "fixtures", "v2-traces");

/** The trace harness, counting native calls in flight at once; each call yields so overlap could happen. */
class InFlightProbe extends EveryKthFails {
  inFlight = 0;
  maxInFlight = 0;
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return await super.modelAction(request, snapshot, context);
    } finally {
      this.inFlight -= 1;
    }
  }
}

describe("v2 with max_in_flight > 1", () => {
  it("runs serially as RAES does (v2 never takes the concurrent batch): in-flight-2-seed3e reproduced, one call at a time", async () => {
    const model = compileFile(join(RECORDED, "in-flight-2.sdl.yaml"));
    const policy = Object.values(model.autonomousPolicies)[0];
    assert.equal(policy?.maxInFlight, 2);
    assert.equal(policy?.participantAddresses.length, 2);
    const expected = readTrace(join(RECORDED, "in-flight-2-seed3e.jsonl"));
    // RAES's trace has ticks where both participants are due, so concurrency was possible there.
    const due = new Map<string, Set<string>>();
    for (const l of expected) {
      const k = `${l.segment}@${l.tick}`;
      due.set(k, (due.get(k) ?? new Set()).add(l.action_instance_id.split(":")[1] ?? ""));
    }
    assert.ok(
      [...due.values()].some((s) => s.size === 2),
      "some tick has both participants due",
    );
    const runtime = new InFlightProbe(3, "target_unavailable");
    const closed: { step: number; summary: InvocationSummary }[] = [];
    let step = 0;
    const manager = await RuntimeManager.open({
      model,
      manifest: v2Manifest(),
      runtime,
      stochasticControls: [
        { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "3e".repeat(32) },
      ],
      observer: { invocationClosed: (summary) => closed.push({ step, summary }) },
    });
    try {
      for (step = 1; step <= 60; step += 1) {
        await manager.step(1);
        if (step === 30) await manager.reset();
      }
      assert.equal(firstDifference(linesOf(closed, await manager.history()), expected), undefined);
    } finally {
      await manager.close();
    }
    assert.equal(runtime.maxInFlight, 1, "v2 native calls never overlap, whatever max_in_flight allows");
  });
});

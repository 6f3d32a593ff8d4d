import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import type { InvocationSummary } from "../../../src/runtime/index.js";
import { EveryKthFails, firstDifference, linesOf, v2Manifest } from "./harness.js";
import { compileFile, readTrace, V2_EXAMPLE, V2_FIXTURES } from "./trace.js";

describe("v2 pause and resume", () => {
  it("pause holds the continuation (paused, nothing runs), resume goes on with the same trace", async () => {
    const closed: { step: number; summary: InvocationSummary }[] = [];
    let step = 0;
    const manager = await RuntimeManager.open({
      model: compileFile(V2_EXAMPLE),
      manifest: v2Manifest(),
      runtime: new EveryKthFails(3, "target_unavailable"),
      stochasticControls: [
        { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
      ],
      observer: { invocationClosed: (summary) => closed.push({ step, summary }) },
    });
    try {
      for (step = 1; step <= 60; step += 1) {
        await manager.step(1);
        if (step === 20) {
          await manager.pause();
          assert.equal(manager.schedulers()[0]?.activity?.lifecycle_state, "paused");
          const before = closed.length;
          const paused = await manager.step(5);
          assert.equal(paused.invocations.length, 0);
          assert.equal(closed.length, before);
          await manager.resume();
          assert.equal(manager.schedulers()[0]?.activity?.lifecycle_state, "running");
        }
      }
      const expected = readTrace(join(V2_FIXTURES, "trace-seed42-fail3.jsonl"));
      assert.equal(firstDifference(linesOf(closed, await manager.history()), expected), undefined);
    } finally {
      await manager.close();
    }
  });
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { canonicalAddressBytes, decodePublicSeed, deriveStreamKey } from "../../../src/random/index.js";
import {
  continuationView,
  drawAddress,
  planDue,
  segmentStart,
  settleAttempt,
  type V2Plan,
  v2AddressBytes,
} from "../../../src/runtime/v2/index.js";
import type { ActivityContinuation } from "../../../src/store/index.js";
import { comparable, compileFile, readTrace, type TraceLine, V2_EXAMPLE, V2_FIXTURES } from "./trace.js";

function examplePlan(seedHex: string): V2Plan {
  const model = compileFile(V2_EXAMPLE);
  const policy = Object.values(model.autonomousPolicies)[0];
  const participant = policy?.participantAddresses[0];
  if (!policy?.activity || !participant) throw new Error("the v2 example has no activity policy");
  return {
    activity: policy.activity,
    maxActionAttempts: policy.maxActionAttempts,
    failurePolicy: policy.failurePolicy,
    stream: {
      controlId: "green-activity-policy",
      profileId: "blake3-xof-participant-v1",
      namespace: "green-activity",
      streamKey: deriveStreamKey("blake3-xof-participant-v1", decodePublicSeed(seedHex)),
      policyAddress: policy.address,
      participantAddress: participant,
    },
  };
}

/** Drives the pure engine as RAES's trace tool drives RAES: `steps` advances of step_ticks. */
function simulate(plan: V2Plan, steps: number, failEvery: number, failClass: string): TraceLine[] {
  const step = plan.activity.stepTicks ?? 1;
  let c: ActivityContinuation = segmentStart(
    plan.activity,
    plan.stream,
    0,
    `${plan.stream.participantAddress}-autonomous-0`,
    0,
  );
  const out: TraceLine[] = [];
  let calls = 0;
  for (let s = 1; s <= steps; s += 1) {
    const tick = s * step;
    for (;;) {
      const due = planDue(plan, c, tick);
      if (due.kind === "none") break;
      if (due.kind === "idle") {
        c = due.state;
        break;
      }
      calls += 1;
      const fail = calls % failEvery === 0;
      c = settleAttempt(plan, due.state, due.attempt, {
        succeeded: !fail,
        failureClass: fail ? failClass : undefined,
        protocolFailure: false,
        indeterminate: false,
      });
      out.push({
        step: s,
        tick,
        segment: 0,
        action_instance_id: due.attempt.attemptId,
        candidate_id: due.attempt.candidate.id,
        action_contract_address: due.attempt.candidate.actionContractAddress,
        timing_disposition: due.attempt.timingDisposition,
        burst_position: due.attempt.burstPosition,
        predecessor_attempt_id: due.attempt.predecessorAttemptId,
        result: { status: fail ? "failed" : "succeeded", failure_class: fail ? failClass : null },
        after: continuationView(c),
      });
    }
  }
  return out;
}

describe("v2 scheduler engine (pure, no runtime)", () => {
  it("reproduces RAES's seed-42 trace with every third call failing", () => {
    const expected = readTrace(join(V2_FIXTURES, "trace-seed42-fail3.jsonl"));
    const got = simulate(examplePlan("42".repeat(32)), 60, 3, "target_unavailable");
    assert.equal(got.length, expected.length);
    for (const [i, line] of got.entries())
      assert.deepEqual(comparable(line), comparable(expected[i] as TraceLine), `line ${i + 1}`);
  });

  it("writes participant stream addresses exactly as the generic RFC 8785 form", () => {
    const plan = examplePlan("00".repeat(32));
    for (const [segment, occurrence, coordinate] of [
      [0, 0, 0],
      [3, 17, 1],
      [12, 123456, 2],
    ] as const) {
      const address = drawAddress(plan.stream, segment, occurrence, coordinate);
      assert.deepEqual(v2AddressBytes(address), canonicalAddressBytes(address));
    }
  });
});

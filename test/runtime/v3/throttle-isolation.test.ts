import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { RuntimeModel } from "../../../src/compiler/index.js";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import type { ResourceThrottle } from "../../../src/runtime/index.js";
import { MeasuringRuntime, V3_TRACES, v3Manifest, v3Model } from "./harness.js";

const AGENT = "participant.behavior.participant-agent";
const OTHER = `${AGENT}-other`;

/**
 * Two v3 policies on one clock: the images run-limit example's policy (A, for participant-agent) and a
 * copy of it (B, for a second participant), with the images limits given. Every pool's capacity is
 * doubled in the manifest so both policies register.
 */
function twoPolicies(imagesA: number, imagesB: number): { model: RuntimeModel; a: string; b: string } {
  const model = v3Model(join(V3_TRACES, "images-run-limit.sdl.yaml"));
  const [[a, policy]] = Object.entries(model.autonomousPolicies) as [
    [string, RuntimeModel["autonomousPolicies"][string]],
  ];
  const original = model.participants[AGENT];
  if (!policy || !original) throw new Error("the example has no v3 policy for participant-agent");
  const withImages = (limit: number) =>
    (policy.resourceDemands ?? []).map((d) => (d.budgetId === "images" ? { ...d, limit } : d));
  const b = `${a}-other`;
  return {
    a,
    b,
    model: {
      ...model,
      participants: { ...model.participants, [OTHER]: { ...original, address: OTHER } },
      autonomousPolicies: {
        [a]: { ...policy, resourceDemands: withImages(imagesA) },
        [b]: {
          ...policy,
          address: b,
          name: `${policy.name}-other`,
          participantAddresses: [OTHER],
          resourceDemands: withImages(imagesB),
        },
      },
      affordanceBindings: [
        ...model.affordanceBindings,
        ...model.affordanceBindings
          .filter((x) => x.participantAddress === AGENT)
          .map((x) => ({ ...x, participantAddress: OTHER })),
      ],
    },
  };
}

function doubledPools(): unknown {
  const manifest = v3Manifest() as {
    participant_runtime: { resource_budgets: { configured_pools: { capacity: number }[] } };
  };
  for (const pool of manifest.participant_runtime.resource_budgets.configured_pools) pool.capacity *= 2;
  return manifest;
}

/** Which participant each native call came from, in order; every call succeeds, so none depends on another's. */
class CallLog extends MeasuringRuntime {
  readonly log: { participant: string; id: string; tick: number }[] = [];
  constructor() {
    super(1_000_000);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.log.push({
      participant: request.participantAddress,
      id: request.actionInstanceId,
      tick: snapshot.tick,
    });
    return super.modelAction(request, snapshot, context);
  }
}

async function run(imagesA: number, imagesB: number, steps: number) {
  const { model, a, b } = twoPolicies(imagesA, imagesB);
  const runtime = new CallLog();
  const throttles: ResourceThrottle[] = [];
  const manager = await RuntimeManager.open({
    model,
    manifest: doubledPools(),
    runtime,
    log: () => undefined,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
    observer: { resourceThrottled: (t) => throttles.push(t) },
  });
  const advances: number[] = [];
  try {
    for (let i = 0; i < steps; i += 1) advances.push((await manager.step(1)).steps);
    return { a, b, runtime, throttles, advances, budgets: manager.resourceBudgets() };
  } finally {
    await manager.close();
  }
}

describe("a throttled v3 policy holds back only its own attempt (DESIGN §15)", () => {
  it("never stops another policy's attempts: the other policy runs exactly the attempts it runs when nothing is throttled", async () => {
    const steps = 30;
    const throttled = await run(2, 30, steps);
    const free = await run(30, 30, steps);
    const { a, b } = throttled;
    assert.ok(throttled.throttles.length > 0, "policy A is throttled");
    assert.ok(throttled.throttles.every((t) => t.policyAddress === a && t.budgetId === "images"));
    assert.equal(free.throttles.length, 0, "nothing is throttled in the baseline");
    const of = (calls: readonly { participant: string; id: string }[], p: string): string[] =>
      calls.filter((c) => c.participant === p).map((c) => c.id);
    // B's native calls, attempt for attempt, are the baseline's: A's throttle changed nothing of B's.
    assert.ok(of(free.runtime.log, OTHER).length > 5);
    assert.deepEqual(of(throttled.runtime.log, OTHER), of(free.runtime.log, OTHER));
    const firstThrottleTick = Math.min(...throttled.throttles.map((t) => t.tick));
    assert.ok(
      throttled.runtime.log.some((c) => c.participant === OTHER && c.tick > firstThrottleTick),
      "B's attempts reach the runtime after A's first throttle",
    );
    // Only the throttled attempt is held back: A ran its 2 images, the attempt refused is never run, and
    // it is the one attempt A offers again at each next tick until the run ends.
    assert.equal(of(throttled.runtime.log, AGENT).length, 2);
    assert.deepEqual(of(throttled.runtime.log, AGENT), of(free.runtime.log, AGENT).slice(0, 2));
    const held = new Set(throttled.throttles.map((t) => t.operationId));
    assert.equal(held.size, 1);
    const [heldId] = held;
    assert.equal(
      heldId,
      of(free.runtime.log, AGENT)[2],
      "the held attempt is A's third, as without the throttle",
    );
    assert.ok(
      !throttled.runtime.log.some((c) => c.id === heldId),
      "the held attempt never reached the runtime",
    );
    assert.deepEqual(throttled.advances, Array(steps).fill(1), "every advance commits");
    const images = (p: string) =>
      throttled.budgets.find((x) => x.policy_address === p && x.budget_id === "images");
    assert.equal(images(a)?.cumulative_use, 2);
    assert.equal(images(a)?.throttled, throttled.throttles.length);
    assert.equal(images(b)?.throttled, 0);
    assert.equal(images(b)?.cumulative_use, of(free.runtime.log, OTHER).length);
  });
});

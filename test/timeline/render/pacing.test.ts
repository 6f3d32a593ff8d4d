import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PacingDeviationRecord } from "../../../src/records/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { readTimelineInput, readTimelinePage, renderTimelineHtml } from "../../../src/timeline/index.js";
import { committedDrafts, craftedInvocation, sequenced } from "../../fixtures/history/crafted.js";
import { visibleMarkup } from "../../fixtures/history/html.js";

const P = "participant.behavior.alpha";
const Q = "participant.behavior.beta";
const POLICY = "participant.autonomous-execution.spec";
const CLOCK = "time.clock.scenario-clock";

function deviation(participantAddress: string, generation: number): PacingDeviationRecord {
  return {
    participantAddress,
    policyAddress: POLICY,
    clockAddress: CLOCK,
    generation,
    ref: `evidence:${POLICY}:pacing-loss:${CLOCK}:generation-${generation}`,
    latenessMs: 412.6,
    boundMs: 100,
    recordedAt: `2025-06-01T10:00:0${generation}.000Z`,
  };
}

async function storeWithDeviations(): Promise<MemoryControlPlaneStore> {
  const store = new MemoryControlPlaneStore();
  assert.equal(await store.recordPacingDeviation(deviation(P, 1)), true);
  assert.equal(await store.recordPacingDeviation(deviation(P, 1)), false, "a deviation is stored once");
  assert.equal(await store.recordPacingDeviation(deviation(P, 2)), true);
  assert.equal(await store.recordPacingDeviation(deviation(Q, 1)), true);
  return store;
}

describe("the timeline's degraded services (stored pacing deviations)", () => {
  it("lists each pacing loss in its participant's section: the clock, how late, the bound, when and RAES's ref", () => {
    const invocation = craftedInvocation(P, 0);
    const page = visibleMarkup(
      renderTimelineHtml({
        events: sequenced(committedDrafts(invocation, [], "succeeded")),
        operations: [],
        pacingDeviations: [deviation(P, 1), deviation(P, 2)],
      }),
    );
    assert.match(page, /data-service-health="degraded" data-pacing-deviations="2"/);
    const refs = [...page.matchAll(/<li data-pacing-ref="([^"]+)">(.*?)<\/li>/g)];
    assert.deepEqual(
      refs.map((m) => m[1]),
      [deviation(P, 1).ref, deviation(P, 2).ref],
    );
    assert.match(refs[0]?.[2] ?? "", /413 ms late \(bound 100 ms\)/);
    assert.match(refs[0]?.[2] ?? "", /2025-06-01T10:00:01\.000Z/);
  });

  it("shows no degraded service when pacing was kept", () => {
    const invocation = craftedInvocation(P, 0);
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(invocation, [], "succeeded")),
      operations: [],
    });
    assert.doesNotMatch(page, /data-service-health/);
  });

  it("reads the deviations from the store, of the shown participant or of all, in the whole and the streamed page", async () => {
    const store = await storeWithDeviations();
    const all = await readTimelineInput(store, {});
    assert.deepEqual(
      all.pacingDeviations?.map((d) => [d.participantAddress, d.ref]),
      [
        [P, deviation(P, 1).ref],
        [P, deviation(P, 2).ref],
        [Q, deviation(Q, 1).ref],
      ],
    );
    const one = await readTimelineInput(store, { participantAddress: Q });
    assert.deepEqual(
      one.pacingDeviations?.map((d) => d.ref),
      [deviation(Q, 1).ref],
    );
    const { page } = await readTimelinePage(store, { participantAddress: P }, "memory:");
    assert.deepEqual(
      page.pacingDeviations(P).map((d) => d.ref),
      [deviation(P, 1).ref, deviation(P, 2).ref],
    );
    assert.deepEqual(page.pacingDeviations(Q), []);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  EXECUTION_SERVICE_STATE_SCHEMA,
  type ParticipantServiceRecord,
  pacingDeviationRef,
} from "../../../src/records/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { readTimelineInput, readTimelinePage, renderTimelineHtml } from "../../../src/timeline/index.js";
import { committedDrafts, craftedInvocation, sequenced } from "../../fixtures/history/crafted.js";
import { visibleMarkup } from "../../fixtures/history/html.js";

const P = "participant.behavior.alpha";
const Q = "participant.behavior.beta";
const POLICY = "participant.autonomous-execution.spec";
const CLOCK = "time.clock.scenario-clock";

function paused(participantAddress: string): ParticipantServiceRecord {
  return {
    participantAddress,
    revision: 1,
    service: {
      schema_version: EXECUTION_SERVICE_STATE_SCHEMA,
      execution_scope_ref: `${POLICY}:${participantAddress}`,
      policy_address: POLICY,
      desired_lifecycle: "paused",
      observed_lifecycle: "paused",
      generation: 2,
      observed_generation: 2,
      health: "healthy",
      readiness: "not_ready",
      accepting_new_work: false,
      draining: false,
      quiescent: true,
      resources_released: false,
      policy_digest: "sha256:1",
      binding_digest: "sha256:2",
      time_declaration_digest: "sha256:3",
      scheduler_state_refs: [],
      resource_budget_state_refs: [],
      capacity: 4,
      reserved: 0,
      in_flight: 0,
      last_transition_ref: `operation:${POLICY}:${participantAddress}:pause:revision-1`,
      pacing_deviation_refs: [],
      evidence_refs: [],
    },
    controlActions: [],
    clockGeneration: 1,
    episode: null,
    episodeHistory: [],
    updatedAt: "2025-06-01T10:00:00.000Z",
  };
}

describe("the timeline's execution services", () => {
  it("shows each participant's service in its section: lifecycle, health when not healthy, generation", () => {
    const page = visibleMarkup(
      renderTimelineHtml({
        events: sequenced(committedDrafts(craftedInvocation(P, 0), [], "succeeded")),
        operations: [],
        services: [
          {
            participantAddress: P,
            lifecycle: "paused",
            health: "degraded",
            generation: 2,
            acceptingNewWork: false,
          },
        ],
      }),
    );
    assert.match(
      page,
      /<div class="scheduler stopped" data-service="paused" data-health="degraded" data-generation="2"><span class="service-state">service paused, degraded · generation 2<\/span><\/div>/,
    );
  });

  it("shows no service when none is given", () => {
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(craftedInvocation(P, 0), [], "succeeded")),
      operations: [],
    });
    assert.doesNotMatch(page, /data-service=/);
  });

  it("reads the services from the store as every readback shows them (pacing losses joined), of the shown participant or of all", async () => {
    const store = new MemoryControlPlaneStore();
    assert.equal(await store.saveParticipantService(paused(P)), true);
    assert.equal(await store.saveParticipantService(paused(Q)), true);
    await store.recordPacingDeviation({
      participantAddress: P,
      policyAddress: POLICY,
      clockAddress: CLOCK,
      generation: 1,
      ref: pacingDeviationRef(POLICY, CLOCK, 1),
      latenessMs: 300,
      boundMs: 100,
      recordedAt: "2025-06-01T10:00:01.000Z",
    });
    const all = await readTimelineInput(store, {});
    assert.deepEqual(
      all.services?.map((s) => [s.participantAddress, s.lifecycle, s.health, s.generation]),
      [
        [P, "paused", "degraded", 2],
        [Q, "paused", "healthy", 2],
      ],
    );
    const one = await readTimelineInput(store, { participantAddress: Q });
    assert.deepEqual(
      one.services?.map((s) => s.participantAddress),
      [Q],
    );
    const { page } = await readTimelinePage(store, { participantAddress: P }, "memory:");
    assert.equal(page.service(P)?.health, "degraded");
    assert.equal(page.service(Q), undefined);
  });
});

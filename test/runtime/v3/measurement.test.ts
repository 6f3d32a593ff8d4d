import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { MeasuringRuntime, v3Manifest, v3Model } from "./harness.js";

type Mangle = (
  measurements: NonNullable<ParticipantActionResult["resourceMeasurements"]>,
) => ParticipantActionResult["resourceMeasurements"];

/** The trace runtime whose first result's measurement vector is mangled. */
class Mangled extends MeasuringRuntime {
  constructor(readonly mangle: Mangle) {
    super(0);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const result = await super.modelAction(request, snapshot, context);
    const mangled = this.mangle(result.resourceMeasurements ?? []);
    const { resourceMeasurements: _dropped, ...rest } = result;
    return mangled === undefined ? rest : { ...rest, resourceMeasurements: mangled };
  }
}

async function firstAttempt(mangle: Mangle) {
  const runtime = new Mangled(mangle);
  const manager = await RuntimeManager.open({
    model: v3Model(),
    manifest: v3Manifest(),
    runtime,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
  });
  try {
    const { invocations } = await manager.step(3);
    const [first] = invocations;
    assert.ok(first, "the first attempt ran");
    return {
      first,
      count: invocations.length,
      manager,
      budgets: manager.resourceBudgets(),
      events: manager.resourceBudgetEvents(),
    };
  } finally {
    await manager.close();
  }
}

describe("v3 measurement vectors are checked as RAES checks them", () => {
  it("commits an exact vector and carries it on the summary", async () => {
    const { first, count, budgets } = await firstAttempt((m) => m);
    assert.equal(first.resources?.result, "committed");
    assert.equal(first.resources?.measurement?.tokens, 500);
    assert.equal(budgets.find((b) => b.budget_id === "tokens")?.cumulative_use, 500 * count);
  });

  const untrusted = "runtime.participant-resource-measurement-untrusted";
  const invalid = "runtime.participant-resource-measurement-invalid";
  const cases: [string, Mangle, string][] = [
    ["no vector at all", () => undefined, untrusted],
    ["a missing budget", (m) => m.slice(1), untrusted],
    [
      "a foreign budget",
      (m) => [
        ...m.slice(1),
        { ...(m[0] as NonNullable<(typeof m)[0]>), budgetStateRef: "x.resource-budget-state.x" },
      ],
      untrusted,
    ],
    [
      "another resource kind",
      (m) => m.map((x, i) => (i === 0 ? { ...x, resourceKind: "inference_tokens" } : x)),
      untrusted,
    ],
    ["another generation", (m) => m.map((x) => ({ ...x, executionGeneration: 7 })), untrusted],
    ["more than reserved", (m) => m.map((x) => ({ ...x, measured: x.measured + 1 })), invalid],
    ["no evidence", (m) => m.map((x) => ({ ...x, evidenceRefs: [] })), invalid],
  ];
  for (const [name, mangle, code] of cases) {
    it(`releases the reservation and stops the schedule on ${name} (${code})`, async () => {
      const { first, budgets, events } = await firstAttempt(mangle);
      assert.equal(first.resources?.result, "released");
      assert.equal((first.error as { code?: string } | undefined)?.code, code);
      assert.equal(first.scheduler.lifecycle, "stopped");
      for (const b of budgets) {
        assert.equal(b.reserved, 0);
        assert.equal(b.cumulative_use, 0);
      }
      assert.ok(events.some((e) => e.transition === "release" && e.code === code));
    });
  }
});

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { MeasuringRuntime, v3Manifest, v3Model } from "../v3/harness.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** Measures less than reserved (so a span could not pass by showing the reservation twice); the 3rd call measures nothing. */
class Metered extends MeasuringRuntime {
  #calls = 0;
  constructor() {
    super(0, { tokens: 123, accelerator: 0 });
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    const result = await super.modelAction(request, snapshot, context);
    this.#calls += 1;
    if (this.#calls !== 3) return result;
    const { resourceMeasurements: _none, ...unmeasured } = result;
    return unmeasured;
  }
}

describe("OpenTelemetry: a v3 invocation span carries its reserved and measured vectors", () => {
  before(() => {
    trace.setGlobalTracerProvider(provider);
  });
  after(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it("each budget's reservation and committed measurement on the span; a released attempt has no measured vector", async () => {
    const manager = await RuntimeManager.open({
      model: v3Model(),
      manifest: v3Manifest(),
      runtime: new Metered(),
      store: "memory:",
      stochasticControls: [
        { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
      ],
      log: () => undefined,
    });
    const invocations = [];
    try {
      for (let s = 0; s < 40 && invocations.length < 3; s += 1)
        invocations.push(...(await manager.step()).invocations);
    } finally {
      await manager.close();
    }
    assert.ok(invocations.length >= 3, `ran ${invocations.length}`);
    const spans = new Map(
      exporter
        .getFinishedSpans()
        .filter((s) => s.attributes["gen_ai.operation.name"] === "invoke_agent")
        .map((s) => [s.attributes["raes.invocation.id"], s.attributes]),
    );
    const vector = (attrs: Record<string, unknown>, prefix: string) =>
      Object.fromEntries(
        Object.entries(attrs)
          .filter(([k]) => k.startsWith(prefix))
          .map(([k, v]) => [k.slice(prefix.length), v]),
      );
    const [first, second, third] = invocations;
    for (const committed of [first, second]) {
      assert.ok(committed?.resources);
      const attrs = spans.get(committed.invocationId);
      assert.ok(attrs, "the invocation has a span");
      assert.equal(attrs["raes.resource.result"], "committed");
      const reserved = vector(attrs, "raes.resource.reserved.");
      const measured = vector(attrs, "raes.resource.measured.");
      assert.equal(Object.keys(reserved).length, 8, "the whole vector of the example's eight budgets");
      assert.deepEqual(reserved, committed.resources.reservation);
      assert.deepEqual(measured, committed.resources.measurement);
      assert.equal(measured.tokens, 123);
      assert.equal(reserved.tokens, 500);
      assert.equal(measured.accelerator, 0);
    }
    assert.ok(third?.resources);
    const released = spans.get(third.invocationId);
    assert.ok(released);
    assert.equal(released["raes.resource.result"], "released");
    assert.deepEqual(vector(released, "raes.resource.reserved."), third.resources.reservation);
    assert.deepEqual(vector(released, "raes.resource.measured."), {});
  });
});

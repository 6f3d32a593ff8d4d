import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type HistoryEvent, RuntimeManager } from "../../src/index.js";
import { comparable } from "../runtime/raes-runtime-fixtures.js";
import { EveryKthFails, v2Manifest } from "../runtime/v2/harness.js";
import { compileFile, V2_EXAMPLE, V2_FIXTURES } from "../runtime/v2/trace.js";

interface RaesEvent {
  readonly event_type: string;
  readonly action_instance_id: string;
  readonly activity_provenance?: Record<string, unknown>;
}

/** RAES's fixture keeps some null and empty fields that its runtime histories drop; compare without them. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalized);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const n = normalized(v);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value === null ? undefined : value;
}

function fixture(): { events: RaesEvent[] } {
  return JSON.parse(readFileSync(join(V2_FIXTURES, "raes-v2-history-first-5-steps.json"), "utf8")) as {
    events: RaesEvent[];
  };
}

/** The v2 example run RAES recorded: seed 42…42, every 3rd native call failed, 5 steps. */
async function firstFiveSteps(): Promise<HistoryEvent[]> {
  const manager = await RuntimeManager.open({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime: new EveryKthFails(3, "target_unavailable"),
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
  });
  try {
    await manager.step(5);
    return (await manager.history()).filter((e) => e.invocation_tool_context === undefined);
  } finally {
    await manager.close();
  }
}

describe("activity_provenance on v2 events, as RAES writes it", () => {
  it("matches raes-v2-history-first-5-steps.json event for event", async () => {
    const { events } = fixture();
    const ours = await firstFiveSteps();
    assert.equal(ours.length, events.length);
    for (const [i, raes] of events.entries()) {
      const mine = ours[i];
      assert.equal(mine?.event_type, raes.event_type);
      assert.equal(mine?.action_instance_id, raes.action_instance_id);
      assert.ok(raes.activity_provenance, "every RAES v2 event carries provenance");
      assert.deepEqual(
        normalized(mine?.activity_provenance),
        normalized(raes.activity_provenance),
        `event ${i + 1}`,
      );
    }
  });

  it("every v2 event equals RAES's field for field (apart from timestamps, digests and raes-ts's own fields)", async () => {
    const { events } = fixture();
    const ours = await firstFiveSteps();
    assert.equal(ours.length, events.length);
    for (const [i, raes] of events.entries()) {
      assert.deepEqual(
        normalized(comparable(ours[i] as HistoryEvent)),
        normalized(comparable(raes as unknown as Record<string, unknown>)),
        `event ${i + 1}`,
      );
    }
  });
});

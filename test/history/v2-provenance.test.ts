import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import { EveryKthFails, v2Manifest } from "../runtime/v2/harness.js";
import { compileFile, V2_EXAMPLE, V2_FIXTURES } from "../runtime/v2/trace.js";

interface RaesEvent {
  readonly event_type: string;
  readonly action_instance_id: string;
  readonly activity_provenance?: Record<string, unknown>;
}

/** RAES's fixture drops null and empty fields; compare on the same footing. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalized);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const n = normalized(v);
      if (n !== undefined) out[k] = n;
    }
    return out;
  }
  return value === null ? undefined : value;
}

describe("activity_provenance on v2 events, as RAES writes it", () => {
  it("matches raes-v2-history-first-5-steps.json event for event", async () => {
    const fixture = JSON.parse(
      readFileSync(join(V2_FIXTURES, "raes-v2-history-first-5-steps.json"), "utf8"),
    ) as { events: RaesEvent[] };
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
      const ours = (await manager.history()).filter((e) => e.invocation_tool_context === undefined);
      assert.equal(ours.length, fixture.events.length);
      for (const [i, raes] of fixture.events.entries()) {
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
    } finally {
      await manager.close();
    }
  });
});

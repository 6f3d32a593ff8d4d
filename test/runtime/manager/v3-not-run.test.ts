import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileScenario } from "../../../src/compiler/index.js";
import { RuntimeManager } from "../../../src/index.js";
import { loadScenario } from "../../../src/sdl/index.js";
import { V3_EXAMPLE, V3_MANIFEST } from "../../fixtures/v3-budget/cases.js";
import { RecordingRuntime } from "../harnesses.js";

describe("a v3 scenario validates, compiles and registers, but RuntimeManager.open does not run it yet", () => {
  it("refuses the v3 example under its admitting manifest with runtime.planning-unsupported", async () => {
    const loaded = loadScenario(readFileSync(V3_EXAMPLE, "utf8"), { source: "text" });
    assert.ok(loaded.scenario);
    const model = compileScenario(loaded.scenario);
    const runtime = new RecordingRuntime();
    await assert.rejects(
      RuntimeManager.open({
        model,
        manifest: JSON.parse(readFileSync(V3_MANIFEST, "utf8")),
        runtime,
        stochasticControls: [
          { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
        ],
      }),
      (e: { code?: string; message?: string }) =>
        e.code === "runtime.planning-unsupported" &&
        /participant-autonomous-execution\/v3 validates and compiles, but the reference scheduler does not run it yet/.test(
          e.message ?? "",
        ),
    );
    assert.equal(runtime.requests.length, 0);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileScenario } from "../../src/compiler/index.js";
import { loadScenario } from "../../src/sdl/index.js";
import { V3_EXAMPLE, V3_MANIFEST } from "../fixtures/v3-budget/cases.js";
import { requestFor } from "../helpers/tool-requests.js";
import { FIRST_INVOCATION, openCore, rulesFor } from "./support/core.js";
import { expectRefusedAdmit } from "./support/refusals.js";

describe("tool actions under participant-autonomous-execution/v3", () => {
  it("are refused with policy_profile_unsupported for the compiled v3 example under its admitting manifest", async () => {
    const loaded = loadScenario(readFileSync(V3_EXAMPLE, "utf8"), { source: "text" });
    assert.ok(loaded.scenario);
    const model = compileScenario(loaded.scenario);
    const manifest = JSON.parse(readFileSync(V3_MANIFEST, "utf8")) as Record<string, unknown>;
    const { core, store } = await openCore(model, { rules: rulesFor(model, { manifest }) });
    await expectRefusedAdmit(
      core.port,
      store,
      requestFor(FIRST_INVOCATION, "a"),
      "policy_profile_unsupported",
    );
  });
});

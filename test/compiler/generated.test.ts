import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  GENERATED_ACTIONS,
  GENERATED_AFFORDANCES,
  GENERATED_GROUP_SIZE,
  generateScenario,
} from "../../bench/shared/index.js";
import { compileScenario } from "../../src/compiler/index.js";
import { formatDiagnostic, hasErrors, loadScenario } from "../../src/sdl/index.js";

describe("the compile bench's generated scenario", () => {
  it("loads without errors and binds 5 affordances × 4 actions to every agent", () => {
    const agents = 25;
    const { scenario, diagnostics } = loadScenario(generateScenario(agents), { source: "text" });
    assert.equal(hasErrors(diagnostics), false, diagnostics.map((d) => formatDiagnostic(d)).join("\n"));
    assert.ok(scenario);
    const model = compileScenario(scenario);
    assert.equal(Object.keys(model.participants).length, agents);
    assert.equal(Object.keys(model.actionContracts).length, GENERATED_ACTIONS);
    assert.equal(Object.keys(model.autonomousPolicies).length, Math.ceil(agents / GENERATED_GROUP_SIZE));
    assert.equal(model.affordanceBindings.length, agents * GENERATED_AFFORDANCES * 4);
    const first = model.affordanceBindings[0];
    assert.deepEqual(first?.targetAddresses, [
      "provision.node.node-0",
      "provision.node.node-1.service.svc-b",
      "provision.node.node-0.service.svc-a",
      "provision.content.evidence-0",
    ]);
  });
});

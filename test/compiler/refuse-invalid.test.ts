import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CompileErrorCode, compileScenario } from "../../src/compiler/index.js";
import { hasErrors, loadScenario, type Scenario } from "../../src/sdl/index.js";
import { editExample } from "../fixtures/scenarios/example.js";
import { INVALID_CASES } from "../fixtures/scenarios/invalid/cases.js";
import { EXAMPLE_SCENARIO } from "../helpers/example.js";

describe("a scenario with errors is never usable", () => {
  it("loadScenario returns no scenario when any finding is an error, and still every finding", () => {
    for (const fixture of INVALID_CASES) {
      const { scenario, diagnostics } = loadScenario(editExample(fixture.edits), { source: "text" });
      assert.ok(hasErrors(diagnostics), fixture.name);
      assert.equal(scenario, undefined, fixture.name);
    }
  });

  it("compileScenario refuses a scenario with errors with compiler.scenario-invalid, naming each error", () => {
    const { scenario } = loadScenario(EXAMPLE_SCENARIO);
    assert.ok(scenario);
    const broken = structuredClone(scenario) as Scenario & {
      agents: Record<string, { actions: string[] }>;
    };
    const agent = broken.agents["participant-agent"];
    assert.ok(agent);
    agent.actions = [...agent.actions, "no-such-action"];
    assert.throws(
      () => compileScenario(broken),
      (error: { code?: string; details?: readonly string[] }) =>
        error.code === CompileErrorCode.scenario_invalid &&
        (error.details ?? []).some((line) =>
          line.startsWith("participant.action-contract-unbound /agents/participant-agent/actions/1"),
        ),
    );
  });

  it("compileScenario refuses a value that is not a decoded scenario with the same code", () => {
    assert.throws(
      () => compileScenario({ agents: 3 } as unknown as Scenario),
      (error: { code?: string }) => error.code === CompileErrorCode.scenario_invalid,
    );
  });

  it("the refusal of a value that is not a scenario is one fixed line, with no JavaScript internals", () => {
    for (const value of [{}, { agents: 3 }, { action_contracts: null }, []]) {
      assert.throws(
        () => compileScenario(value as unknown as Scenario),
        (error: { code?: string; details?: readonly string[] }) => {
          assert.equal(error.code, CompileErrorCode.scenario_invalid);
          assert.deepEqual(error.details, [
            "the value is not a loaded scenario: loadScenario returns one for a scenario file without errors",
          ]);
          return true;
        },
      );
    }
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RuntimeModel } from "../../src/compiler/index.js";
import { hostParticipant } from "../../src/host/index.js";

/** The two parts of a model that choosing the participant reads. */
function model(policies: Record<string, readonly string[]>, bound: readonly string[]): RuntimeModel {
  return {
    autonomousPolicies: Object.fromEntries(
      Object.entries(policies).map(([address, participants]) => [
        address,
        { participantAddresses: participants },
      ]),
    ),
    affordanceBindings: bound.map((participantAddress) => ({ participantAddress })),
  } as unknown as RuntimeModel;
}

describe("the participant host mode runs", () => {
  it("is the only autonomous participant with a tool affordance binding", () => {
    const m = model({ "policy.a": ["p.agent", "p.quiet"] }, ["p.agent"]);
    assert.deepEqual(hostParticipant(m, undefined), { participant: "p.agent" });
  });

  it("must be chosen when several have bindings, and the problem lists them", () => {
    const m = model({ "policy.a": ["p.b"], "policy.b": ["p.a"] }, ["p.a", "p.b"]);
    const chosen = hostParticipant(m, undefined);
    assert.ok("problem" in chosen);
    assert.match(chosen.problem, /choose one with --participant: p\.a, p\.b$/);
    assert.deepEqual(hostParticipant(m, "p.b"), { participant: "p.b" });
  });

  it("refuses a name that is no autonomous participant, and a scenario with none to run", () => {
    const m = model({ "policy.a": ["p.agent"] }, ["p.agent"]);
    const unknown = hostParticipant(m, "p.other");
    assert.ok("problem" in unknown);
    assert.match(
      unknown.problem,
      /p\.other is not an autonomous participant of the scenario; it has: p\.agent/,
    );
    const none = hostParticipant(model({ "policy.a": ["p.agent"] }, []), undefined);
    assert.ok("problem" in none);
    assert.match(none.problem, /no autonomous participant with a tool affordance binding/);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runMapProblems } from "../../src/cli/run-map.js";
import type { RuntimeModel } from "../../src/compiler/index.js";
import { hostMapProblems } from "../../src/host/index.js";
import { parseToolMap, type ToolMap } from "../../src/mcp/index.js";
import { EXAMPLE, exampleModel, modelWithParticipants, ROOT } from "../helpers/example.js";

/** The live fixture map: echo, slow_echo and write_db, all on the example's one binding. */
function liveMap(): ToolMap {
  const parsed = parseToolMap(readFileSync(join(ROOT, "test", "fixtures", "live", "map.yaml"), "utf8"));
  if (!parsed.ok) throw new Error("the live map does not parse");
  return parsed.map;
}

/** The model without the affordance bindings of the participants named. */
function unbinding(model: RuntimeModel, ...participants: string[]): RuntimeModel {
  return {
    ...model,
    affordanceBindings: model.affordanceBindings.filter((b) => !participants.includes(b.participantAddress)),
  };
}

describe("raes run --agent-command: the map against the scenario (runMapProblems)", () => {
  it("finds nothing when the map's tools are bound", async () => {
    assert.deepEqual(await runMapProblems(exampleModel(), liveMap()), []);
  });

  it("with one autonomous participant, says what host mode says, line for line", async () => {
    const model = unbinding(exampleModel(), EXAMPLE.participant);
    const problems = await runMapProblems(model, liveMap());
    assert.deepEqual(problems, hostMapProblems(model, EXAMPLE.participant, liveMap()));
    assert.equal(problems.length, 3);
    assert.match(problems[0] ?? "", /^map tool echo: .* so every call would be refused affordance_unbound$/);
  });

  it("with several, names a tool only when no participant binds it: the one map serves every participant's agent", async () => {
    const model = modelWithParticipants(2);
    const [first, second] = [`${EXAMPLE.participant}-1`, `${EXAMPLE.participant}-2`];
    assert.deepEqual(await runMapProblems(unbinding(model, second), liveMap()), []);
    const none = await runMapProblems(unbinding(model, first, second), liveMap());
    assert.equal(none.length, 3);
    assert.match(
      none[0] ?? "",
      new RegExp(
        `^map tool echo: none of the scenario's autonomous participants \\(${first}, ${second}\\) has a binding .* affordance_unbound$`,
      ),
    );
  });
});

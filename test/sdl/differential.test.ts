import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadScenario } from "../../src/sdl/index.js";
import { buildCase, loadRaesVerdicts, RECIPES } from "../fixtures/sdl-differential/cases.js";

/**
 * Cases whose code set is known to differ from RAES's, with the reason. The verdict must still agree.
 * Empty today: every case agrees exactly. The test fails if an entry here stops differing.
 */
const KNOWN_CODE_DIFFERENCES: Readonly<Record<string, string>> = {};

const FAMILIES = [
  "valid",
  "qualified-refs",
  "vocabularies",
  "projection",
  "view-transitions",
  "v2-graph",
  "initial-knowledge",
  "tool-ref",
  "structural",
  "references",
  "action-contracts",
  "topology",
  "time-model",
  "behavior-spec",
  "temporal-contracts",
  "objectives",
  "interactive-access",
  "mixed-control",
  "mixed-control-semantics",
];

interface Outcome {
  readonly id: string;
  readonly verdict: "valid" | "invalid";
  readonly codes: readonly string[];
}

function judge(text: string): Omit<Outcome, "id"> {
  const errors = loadScenario(text, { source: "text" }).diagnostics.filter((d) => d.severity === "error");
  return {
    verdict: errors.length === 0 ? "valid" : "invalid",
    codes: [...new Set(errors.map((d) => d.code))].sort(),
  };
}

describe("SDL validation differential against the RAES reference (recorded verdicts)", () => {
  const raes = loadRaesVerdicts();
  const outcomes: Outcome[] = RECIPES.map((recipe) => ({ id: recipe.id, ...judge(buildCase(recipe)) }));

  it("covers at least 150 mutations of both examples across every rule family", () => {
    assert.ok(RECIPES.length >= 150, `only ${RECIPES.length} cases`);
    assert.deepEqual(new Set(RECIPES.map((recipe) => recipe.family)), new Set(FAMILIES));
    for (const base of ["v1", "v2"]) assert.ok(RECIPES.some((recipe) => recipe.base === base));
    for (const recipe of RECIPES) assert.ok(raes[recipe.id], `no RAES verdict recorded for ${recipe.id}`);
    assert.ok(outcomes.filter((o) => raes[o.id]?.verdict === "valid").length >= 10);
  });

  it("agrees with RAES on every verdict (100 %)", () => {
    const disagreements = outcomes.filter((o) => o.verdict !== raes[o.id]?.verdict);
    console.log(`verdict agreement: ${outcomes.length - disagreements.length}/${outcomes.length}`);
    assert.deepEqual(
      disagreements.map((o) => `${o.id}: raes-ts ${o.verdict}, RAES ${raes[o.id]?.verdict}`),
      [],
    );
  });

  it("agrees with RAES on the exact issue-code set for at least 98 %, and only on listed known differences", () => {
    const differing = outcomes.filter((o) => o.codes.join(" ") !== raes[o.id]?.codes.join(" "));
    const agreeing = outcomes.length - differing.length;
    console.log(`code-set agreement: ${agreeing}/${outcomes.length}`);
    assert.ok(agreeing / outcomes.length >= 0.98, `${agreeing}/${outcomes.length} is below 98 %`);
    assert.deepEqual(
      differing.map((o) => o.id).filter((id) => !Object.hasOwn(KNOWN_CODE_DIFFERENCES, id)),
      [],
      "unlisted code-set differences",
    );
    for (const id of Object.keys(KNOWN_CODE_DIFFERENCES)) {
      assert.ok(
        differing.some((o) => o.id === id),
        `${id} is listed as a known difference but agrees`,
      );
    }
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { compileScenario, policyDigest, type RuntimeModel } from "../../src/compiler/index.js";
import { hasErrors, loadScenario } from "../../src/sdl/index.js";
import { buildCase, RECIPES } from "../fixtures/sdl-differential/cases.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(REPO, "test", "fixtures");
const RAES = JSON.parse(readFileSync(join(FIXTURES, "raes-compile", "raes-compiled.json"), "utf8")) as {
  cases: Record<string, { policy_digests: Record<string, string> }>;
};
const CHANGE = JSON.parse(
  readFileSync(join(FIXTURES, "raes-policy-digest", "policy-change.json"), "utf8"),
) as { cases: { edit: string; digest_before: string; digest_after: string; codes: string[] }[] };

function compileText(text: string): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(text, { source: "text" });
  assert.equal(hasErrors(diagnostics), false);
  assert.ok(scenario);
  return compileScenario(scenario);
}

function caseText(name: string): string {
  if (!name.startsWith("sdl-differential/")) return readFileSync(join(REPO, name), "utf8");
  const recipe = RECIPES.find((candidate) => `sdl-differential/${candidate.id}` === name);
  assert.ok(recipe);
  return buildCase(recipe);
}

function digests(model: RuntimeModel): Record<string, string> {
  return Object.fromEntries(
    Object.values(model.autonomousPolicies).map((policy) => [policy.address, policyDigest(model, policy)]),
  );
}

const V1 = readFileSync(join(REPO, "examples", "enterprise-participant-evidence-loop.sdl.yaml"), "utf8");
/** The edits tools/record-raes-policy-change.py made, as text edits of the example. */
const EDITS: Readonly<Record<string, readonly [string, string]>> = {
  max_action_attempts: ["    max_action_attempts: 2\n", "    max_action_attempts: 1\n"],
  failure_policy: ["    failure_policy: stop\n", "    failure_policy: continue\n"],
};

describe("policy digest equals RAES's (recorded digests)", () => {
  it("on every policy of the 74 RAES-valid scenarios", () => {
    const names = Object.keys(RAES.cases);
    assert.ok(names.length >= 70);
    const differing = names.filter(
      (name) =>
        JSON.stringify(digests(compileText(caseText(name)))) !==
        JSON.stringify(RAES.cases[name]?.policy_digests),
    );
    assert.deepEqual(differing, []);
  });

  it("before and after each edit RAES refuses as a changed policy", () => {
    for (const change of CHANGE.cases) {
      const edit = EDITS[change.edit];
      assert.ok(edit, change.edit);
      assert.equal(V1.split(edit[0]).length, 2, `the edit target is unique: ${edit[0]}`);
      assert.deepEqual(Object.values(digests(compileText(V1))), [change.digest_before]);
      assert.deepEqual(Object.values(digests(compileText(V1.replace(edit[0], edit[1])))), [
        change.digest_after,
      ]);
      assert.notEqual(change.digest_before, change.digest_after);
      assert.deepEqual(change.codes, ["runtime.participant-autonomous-state-conflict"]);
    }
  });
});

describe("policy digest work", () => {
  it("reads only the records the policy resolves, not the whole model (a square of the participants at open)", () => {
    const model = compileText(V1);
    const [policy] = Object.values(model.autonomousPolicies);
    assert.ok(policy);
    const expected = policyDigest(model, policy);
    // Records the digest does not resolve: reading any of them fails the call.
    const untouchable = new Proxy(
      {},
      {
        ownKeys: () => assert.fail("an unrelated record was read"),
        get: () => assert.fail("an unrelated record was read"),
      },
    );
    const guarded = {
      ...model,
      participants: { ...model.participants, "participant.unrelated": untouchable },
      autonomousPolicies: { ...model.autonomousPolicies, "policy.unrelated": untouchable },
      clocks: { ...model.clocks, "time.clock.unrelated": untouchable },
    } as unknown as RuntimeModel;
    assert.equal(policyDigest(guarded, policy), expected);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { compileScenario, toWireValue } from "../../src/compiler/index.js";
import { hasErrors, loadScenario } from "../../src/sdl/index.js";
import { buildCase, RECIPES } from "../fixtures/sdl-differential/cases.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** RAES's compiled records, recorded by tools/record-raes-compile.py (see test/fixtures/raes-compile/README.md). */
interface RaesCompiled {
  readonly cases: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, string>>>>>>;
  readonly records: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}
const RAES: RaesCompiled = JSON.parse(
  readFileSync(join(REPO, "test", "fixtures", "raes-compile", "raes-compiled.json"), "utf8"),
);

/** RAES record kind → the raes-ts wire section holding the same records. */
const SECTION: Readonly<Record<string, string>> = {
  autonomous_policies: "autonomous_policies",
  behavior_specifications: "behavior_specifications",
  participant_behaviors: "participants",
  action_contracts: "action_contracts",
  observation_boundaries: "observation_boundaries",
  tool_affordances: "tool_affordances",
  time_domains: "time_domains",
  clocks: "clocks",
  progression_policies: "progression_policies",
  temporal_constraints: "temporal_constraints",
};

/**
 * RAES fields raes-ts does not write, each with the reason; docs/raes-mapping.md lists the same. None is
 * left: the test fails when any RAES field is missing or differs.
 */
const ABSENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {};

function caseText(name: string): string {
  if (!name.startsWith("sdl-differential/")) return readFileSync(join(REPO, name), "utf8");
  const recipe = RECIPES.find((candidate) => `sdl-differential/${candidate.id}` === name);
  assert.ok(recipe, `no recipe for ${name}`);
  return buildCase(recipe);
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** raes-ts's value restricted to the keys RAES writes, at every depth (raes-ts's own nested fields, such as `binding_id`, may stay). */
function project(raes: unknown, ours: unknown): unknown {
  if (Array.isArray(raes) && Array.isArray(ours)) return ours.map((item, i) => project(raes[i], item));
  if (isPlainObject(raes) && isPlainObject(ours)) {
    return Object.fromEntries(Object.keys(raes).map((key) => [key, project(raes[key], ours[key])]));
  }
  return ours;
}

describe("compiled model equals RAES's, field for field (recorded RAES compilations)", () => {
  const names = Object.keys(RAES.cases);

  it("covers both examples, the fixture scenarios and every RAES-valid differential case", () => {
    assert.ok(names.includes("examples/enterprise-participant-activity-v2.sdl.yaml"));
    assert.ok(names.includes("examples/enterprise-participant-evidence-loop.sdl.yaml"));
    assert.ok(names.filter((name) => name.startsWith("test/fixtures/")).length >= 8);
    assert.ok(names.filter((name) => name.startsWith("sdl-differential/")).length >= 60);
  });

  it("covers every surface the ref index resolves: accounts, knowledge, interactive access, view transitions, mixed control", () => {
    const surfaces = RAES.cases["test/fixtures/raes-compile/participant-surfaces.sdl.yaml"];
    assert.ok(surfaces, "the participant-surfaces fixture is recorded");
    const records = (kind: string) =>
      Object.values(surfaces[kind] ?? {}).map((digest) => RAES.records[digest] ?? {});
    const some = (kind: string, field: string) =>
      records(kind).some((record) => {
        const value = record[field];
        return Array.isArray(value) ? value.length > 0 : value !== null && value !== "";
      });
    for (const field of [
      "starting_account_addresses",
      "initial_knowledge_addresses",
      "starting_assertion_addresses",
      "authority_anchor_addresses",
      "operating_scope_addresses",
      "interactive_access",
    ]) {
      assert.ok(some("participant_behaviors", field), field);
    }
    for (const field of [
      "disclosed_refs",
      "inferred_refs",
      "deceptive_refs",
      "concealed_refs",
      "view_transitions",
    ]) {
      assert.ok(some("observation_boundaries", field), field);
    }
    for (const field of ["mixed_control_dispositions", "controller_states", "control_transitions"]) {
      assert.ok(some("behavior_specifications", field), field);
    }
  });

  for (const name of names) {
    it(`equals RAES on ${name}`, () => {
      const { scenario, diagnostics } = loadScenario(caseText(name), { source: "text" });
      assert.equal(hasErrors(diagnostics), false, "RAES compiled this case; raes-ts must load it");
      assert.ok(scenario);
      const wire = toWireValue(compileScenario(scenario)) as Record<string, Record<string, unknown>>;
      const differences: string[] = [];
      for (const [kind, byAddress] of Object.entries(RAES.cases[name] ?? {})) {
        if (kind === "policy_digests") continue; // test/compiler/policy-digest.test.ts
        const section = SECTION[kind];
        assert.ok(section, `unmapped RAES record kind ${kind}`);
        assert.deepEqual(Object.keys(wire[section] ?? {}).sort(), Object.keys(byAddress).sort(), kind);
        for (const [address, digest] of Object.entries(byAddress)) {
          const raes = RAES.records[digest] ?? {};
          const ours = (wire[section]?.[address] ?? {}) as Record<string, unknown>;
          for (const [field, value] of Object.entries(raes)) {
            const absent = ABSENT[kind]?.[field];
            if (absent !== undefined) {
              if (ours[field] !== undefined)
                differences.push(`${address}.${field} is listed absent but written`);
              continue;
            }
            const mine = JSON.stringify(project(value, ours[field]));
            if (mine !== JSON.stringify(value)) {
              differences.push(`${address}.${field}: RAES ${JSON.stringify(value)}, raes-ts ${mine}`);
            }
          }
        }
      }
      assert.deepEqual(differences, []);
    });
  }
});

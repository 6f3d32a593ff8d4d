import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { checkManifest, ManifestDiagnosticCode } from "../../src/manifest/index.js";
import { parseToolMap, ToolMapDiagnosticCode } from "../../src/mcp/index.js";
import { DiagnosticCode, loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, exampleManifest, ROOT } from "../helpers/example.js";
import {
  fullRun,
  fuzzInputsPerTarget,
  processFigures,
  reportProgress,
  shareOf,
} from "../helpers/fuzz-budget.js";
import {
  anyJsonValue,
  anyString,
  type Drawn,
  deepFamily,
  deepJson,
  depth,
  drawn,
  FamilyTally,
  garbageBytes,
  mutated,
  nestedJson,
  PROTOTYPE_KEYS,
  withWrongValue,
} from "./arbitraries.js";
import { pathologicalYaml } from "./pathological-yaml.js";

/** 20 000 inputs in CI, RAES_FUZZ_INPUTS for a long run (see docs/hardening.md); scenarios are the slowest. */
const INPUTS = fuzzInputsPerTarget();
const RUNS = {
  scenario: shareOf(INPUTS, 0.2),
  manifestText: shareOf(INPUTS, 0.3),
  manifestValue: shareOf(INPUTS, 0.25),
  map: shareOf(INPUTS, 0.25),
};
const TOTAL = RUNS.scenario + RUNS.manifestText + RUNS.manifestValue + RUNS.map;
const SCENARIO_TEXT = readFileSync(EXAMPLE_SCENARIO, "utf8");
const MANIFEST_TEXT = readFileSync(EXAMPLE_MANIFEST, "utf8");
const MAP_TEXT = readFileSync(join(ROOT, "test", "mcp", "fixtures", "map.yaml"), "utf8");
const SDL_CODES = new Set<string>(Object.values(DiagnosticCode));
const MANIFEST_CODES = new Set<string>(Object.values(ManifestDiagnosticCode));
const MAP_CODES = new Set<string>(Object.values(ToolMapDiagnosticCode));
const tally = new FamilyTally();
const codes = new FamilyTally();
const started = performance.now();
const rss = process.memoryUsage().rss;
const cpu = process.cpuUsage();
const figures = () =>
  `inputs ${tally.inputs}; codes: ${codes.summary()}; families: ${tally.summary()}; ${processFigures(started, rss, cpu)}`;

/** Every family the loader fuzz draws; a run of CI's size must have drawn each of them. */
const FAMILIES = [
  "string",
  "huge string",
  "garbage",
  "mutated",
  "deep",
  "deep 100000",
  "prototype keys",
  "wrong types",
  "duplicate keys",
  "pathological yaml",
];

/** Notes what one input was and what the loader answered. */
function noted(family: string, text: string | undefined, answered: readonly string[]): void {
  tally.note(family, text);
  for (const code of answered.length > 0 ? answered : ["ok"]) codes.add(code);
  reportProgress(tally.inputs, () => `loaders: ${figures()}`);
}

/** YAML nested `levels` deep in flow collections, block mappings or compact sequences. */
const deepYaml = fc.tuple(depth, fc.constantFrom("flow", "map", "block", "seq")).map(([levels, kind]) => {
  const family = deepFamily(levels);
  if (kind === "flow") return { family, input: `tools: ${nestedJson(levels, "array")}` };
  if (kind === "map") return { family, input: `a: ${"{b: ".repeat(levels)}1${"}".repeat(levels)}` };
  if (kind === "seq") return { family, input: `${"- ".repeat(levels)}x` };
  // Block nesting grows quadratically in bytes; 1 500 levels already exceed any bound.
  const n = Math.min(levels, 1_500);
  return {
    family: deepFamily(n),
    input: Array.from({ length: n }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"),
  };
});

/** YAML with prototype keys at the top, inside `tools` and as tool entries. */
const prototypeYaml = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...PROTOTYPE_KEYS), anyString)
  .map(
    ([a, b, value]) =>
      `${a}: ${JSON.stringify(value)}\ntools:\n  ${b}:\n    ${a}: ${JSON.stringify(value)}\n`,
  );

const yamlText = (valid: string): fc.Arbitrary<Drawn<string>> =>
  fc.oneof(
    drawn("string", anyString),
    drawn("garbage", garbageBytes),
    drawn("mutated", mutated(valid)),
    deepYaml,
    drawn("prototype keys", prototypeYaml),
    drawn(
      "wrong types",
      anyJsonValue.map((value) => JSON.stringify(value) ?? "null"),
    ),
    drawn("pathological yaml", pathologicalYaml),
  );

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

describe(`loader fuzz (${TOTAL} inputs)`, () => {
  it("loadScenario never throws and answers only fixed sdl.* codes", {
    timeout: Math.max(600_000, TOTAL * 60),
  }, () => {
    fc.assert(
      fc.property(yamlText(SCENARIO_TEXT), ({ family, input }) => {
        const { diagnostics } = loadScenario(input, { source: "text" });
        for (const d of diagnostics) assert.ok(SDL_CODES.has(d.code), d.code);
        noted(
          family,
          input,
          diagnostics.filter((d) => d.severity === "error").map((d) => d.code),
        );
      }),
      { numRuns: RUNS.scenario },
    );
  });

  it("manifest check of any text never throws and answers only fixed manifest.* codes", {
    timeout: Math.max(600_000, TOTAL * 60),
  }, () => {
    const duplicated = fc
      .constantFrom("name", "version", "participant_runtime", "schema_version")
      .map((key) => MANIFEST_TEXT.replace(`"${key}":`, `"${key}": 1, "${key}":`));
    const text = fc.oneof(
      drawn("string", anyString),
      drawn("garbage", garbageBytes),
      drawn("mutated", mutated(MANIFEST_TEXT)),
      deepJson,
      drawn("duplicate keys", duplicated),
    );
    fc.assert(
      fc.property(text, ({ family, input }) => {
        const { diagnostics } = checkManifest(input);
        for (const d of diagnostics) assert.ok(MANIFEST_CODES.has(d.code), d.code);
        noted(
          family,
          input,
          diagnostics.map((d) => d.code),
        );
      }),
      { numRuns: RUNS.manifestText },
    );
  });

  it("manifest check of any value (wrong types, prototype keys, deep values) never throws", {
    timeout: Math.max(600_000, TOTAL * 60),
  }, () => {
    const deepValue = deepJson.map(({ family, input }) => ({
      family,
      input: { ...exampleManifest(), name: JSON.parse(input) as unknown },
    }));
    const value = fc.oneof(
      drawn("wrong types", withWrongValue(exampleManifest())),
      drawn("wrong types", anyJsonValue),
      deepValue,
    );
    fc.assert(
      fc.property(value, ({ family, input }) => {
        const { diagnostics } = checkManifest(input);
        for (const d of diagnostics) assert.ok(MANIFEST_CODES.has(d.code), d.code);
        noted(
          family,
          undefined,
          diagnostics.map((d) => d.code),
        );
      }),
      { numRuns: RUNS.manifestValue },
    );
  });

  it("map parse never throws and answers only fixed mcp-map.* codes", {
    timeout: Math.max(600_000, TOTAL * 60),
  }, () => {
    fc.assert(
      fc.property(yamlText(MAP_TEXT), ({ family, input }) => {
        const result = parseToolMap(input);
        for (const d of result.ok ? [] : result.diagnostics) assert.ok(MAP_CODES.has(d.code), d.code);
        noted(family, input, result.ok ? [] : result.diagnostics.map((d) => d.code));
      }),
      { numRuns: RUNS.map },
    );
  });

  it("every family was drawn and no promise was left rejected and unhandled", (t) => {
    t.diagnostic(`loaders: ${figures()}`);
    assert.ok(tally.inputs >= INPUTS);
    if (fullRun(tally.inputs)) assert.deepEqual(tally.missing(FAMILIES), [], "every family was drawn");
    assert.deepEqual(unhandled, []);
  });
});

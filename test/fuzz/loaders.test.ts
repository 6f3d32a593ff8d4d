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
  anyJsonValue,
  anyString,
  deepJson,
  depth,
  fuzzInputs,
  garbageBytes,
  mutated,
  nestedJson,
  PROTOTYPE_KEYS,
  withWrongValue,
} from "./arbitraries.js";

/** 12 000 inputs in CI (scenarios, the slowest to check, take fewer); 60 % of a long run. */
const RUNS = {
  scenario: fuzzInputs(2_000, 0.1),
  manifestText: fuzzInputs(4_000, 0.2),
  manifestValue: fuzzInputs(3_000, 0.15),
  map: fuzzInputs(3_000, 0.15),
};
const TOTAL = RUNS.scenario + RUNS.manifestText + RUNS.manifestValue + RUNS.map;
const SCENARIO_TEXT = readFileSync(EXAMPLE_SCENARIO, "utf8");
const MANIFEST_TEXT = readFileSync(EXAMPLE_MANIFEST, "utf8");
const MAP_TEXT = readFileSync(join(ROOT, "test", "mcp", "fixtures", "map.yaml"), "utf8");
const SDL_CODES = new Set<string>(Object.values(DiagnosticCode));
const MANIFEST_CODES = new Set<string>(Object.values(ManifestDiagnosticCode));
const MAP_CODES = new Set<string>(Object.values(ToolMapDiagnosticCode));

/** YAML nested `levels` deep in flow collections, block mappings or compact sequences. */
const deepYaml = fc.tuple(depth, fc.constantFrom("flow", "map", "block", "seq")).map(([levels, kind]) => {
  if (kind === "flow") return `tools: ${nestedJson(levels, "array")}`;
  if (kind === "map") return `a: ${"{b: ".repeat(levels)}1${"}".repeat(levels)}`;
  if (kind === "seq") return `${"- ".repeat(levels)}x`;
  // Block nesting grows quadratically in bytes; 1 500 levels already exceed any bound.
  const n = Math.min(levels, 1_500);
  return Array.from({ length: n }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
});

/** YAML with prototype keys at the top, inside `tools` and as tool entries. */
const prototypeYaml = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...PROTOTYPE_KEYS), anyString)
  .map(
    ([a, b, value]) =>
      `${a}: ${JSON.stringify(value)}\ntools:\n  ${b}:\n    ${a}: ${JSON.stringify(value)}\n`,
  );

const yamlText = (valid: string) =>
  fc.oneof(
    anyString,
    garbageBytes,
    mutated(valid),
    deepYaml,
    prototypeYaml,
    anyJsonValue.map((value) => JSON.stringify(value) ?? "null"),
  );

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

describe(`loader fuzz (${TOTAL} inputs)`, () => {
  it("loadScenario never throws and answers only fixed sdl.* codes", () => {
    fc.assert(
      fc.property(yamlText(SCENARIO_TEXT), (text) => {
        const { diagnostics } = loadScenario(text, { source: "text" });
        for (const d of diagnostics) assert.ok(SDL_CODES.has(d.code), d.code);
      }),
      { numRuns: RUNS.scenario },
    );
  });

  it("manifest check of any text never throws and answers only fixed manifest.* codes", () => {
    const duplicated = fc
      .constantFrom("name", "version", "participant_runtime", "schema_version")
      .map((key) => MANIFEST_TEXT.replace(`"${key}":`, `"${key}": 1, "${key}":`));
    const text = fc.oneof(anyString, garbageBytes, mutated(MANIFEST_TEXT), deepJson, duplicated);
    fc.assert(
      fc.property(text, (input) => {
        for (const d of checkManifest(input).diagnostics) assert.ok(MANIFEST_CODES.has(d.code), d.code);
      }),
      { numRuns: RUNS.manifestText },
    );
  });

  it("manifest check of any value (wrong types, prototype keys, deep values) never throws", () => {
    const deepValue = deepJson.map((text) => ({ ...exampleManifest(), name: JSON.parse(text) as unknown }));
    const value = fc.oneof(withWrongValue(exampleManifest()), anyJsonValue, deepValue);
    fc.assert(
      fc.property(value, (input) => {
        for (const d of checkManifest(input).diagnostics) assert.ok(MANIFEST_CODES.has(d.code), d.code);
      }),
      { numRuns: RUNS.manifestValue },
    );
  });

  it("map parse never throws and answers only fixed mcp-map.* codes", () => {
    fc.assert(
      fc.property(yamlText(MAP_TEXT), (text) => {
        const result = parseToolMap(text);
        for (const d of result.ok ? [] : result.diagnostics) assert.ok(MAP_CODES.has(d.code), d.code);
      }),
      { numRuns: RUNS.map },
    );
  });

  it("no promise was left rejected and unhandled", () => {
    assert.deepEqual(unhandled, []);
  });
});

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { allowedArrows, readLayerFile } from "./doc.js";
import { scanImports } from "./graph.js";
import { checkArchitecture, describeViolation, FORBIDDEN_ARROWS } from "./rules.js";

const SRC = join(ROOT, "src");
const ROWS = readLayerFile(join(ROOT, "docs", "architecture.md"));
const MAX_LINES = 300;

describe("the import graph of src/", () => {
  it("has no cycle between folders, no forbidden arrow and no arrow docs/architecture.md does not list", () => {
    const edges = scanImports(SRC);
    assert.ok(edges.length > 100, `only ${edges.length} imports found; the scan is not reading src/`);
    const violations = checkArchitecture(edges, FORBIDDEN_ARROWS, allowedArrows(ROWS));
    assert.deepEqual(violations.map(describeViolation), []);
  });

  it("gives every folder and top-level file of src/ a row in docs/architecture.md", () => {
    const entries = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith(".ts"))
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(ROWS.map((row) => row.folder).sort(), entries);
  });

  it("keeps the record vocabulary a leaf: records imports nothing from src/", () => {
    const out = scanImports(SRC).filter((edge) => edge.from === "records" && edge.to !== "records");
    assert.deepEqual(out, []);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = sourceFiles(SRC)
      .map((path) => ({ path, lines: readFileSync(path, "utf8").split("\n").length - 1 }))
      .filter((file) => file.lines > MAX_LINES);
    assert.deepEqual(long, []);
  });
});

describe("docs/architecture.md", () => {
  const layerOf = new Map(ROWS.map((row) => [row.folder, row.layer]));

  it("lists arrows that only point down a layer, to folders it has rows for", () => {
    for (const row of ROWS) {
      for (const target of row.imports) {
        const layer = layerOf.get(target);
        assert.notEqual(layer, undefined, `${row.folder} may import ${target}, which has no row`);
        assert.ok(
          (layer ?? 0) < row.layer,
          `${row.folder} (layer ${row.layer}) → ${target} (layer ${layer})`,
        );
      }
    }
  });

  it("allows none of the forbidden arrows", () => {
    for (const row of ROWS) {
      for (const rule of FORBIDDEN_ARROWS.filter((r) => r.from === row.folder)) {
        const allowed = row.imports.filter((target) => rule.to.includes(target));
        assert.deepEqual(allowed, [], `${row.folder} lists forbidden arrows (${rule.why})`);
      }
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { allowedArrows, readLayerFile } from "./doc.js";
import { scanFiles, scanImports } from "./graph.js";
import { checkArchitecture, describeViolation, FORBIDDEN_ARROWS } from "./rules.js";
import {
  crowdedFolders,
  describeStructureViolation,
  doorViolations,
  fileCycles,
  LIMITS,
  longFiles,
  subfolderCycles,
} from "./structure.js";

const SRC = join(ROOT, "src");
const ROWS = readLayerFile(join(ROOT, "docs", "architecture.md"));
const EDGES = scanImports(SRC);
const FILES = scanFiles(SRC);

describe("the import graph of src/", () => {
  it("has no cycle between folders, no forbidden arrow and no arrow docs/architecture.md does not list", () => {
    assert.ok(EDGES.length > 100, `only ${EDGES.length} imports found; the scan is not reading src/`);
    const violations = checkArchitecture(EDGES, FORBIDDEN_ARROWS, allowedArrows(ROWS));
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
    const out = EDGES.filter((edge) => edge.from === "records" && edge.to !== "records");
    assert.deepEqual(out, []);
  });

  it("reaches into a folder only through its door: no import names a file inside another folder", () => {
    assert.deepEqual(doorViolations(EDGES, FILES).map(describeStructureViolation), []);
  });

  it("has no circle of files, type-only imports included", () => {
    assert.deepEqual(fileCycles(EDGES).map(describeStructureViolation), []);
  });

  it("has no circle between sibling subfolders inside a folder", () => {
    assert.deepEqual(subfolderCycles(EDGES).map(describeStructureViolation), []);
  });

  it(`has no file over ${LIMITS.hardLines} lines, and names each over ${LIMITS.softLines}`, (t) => {
    for (const file of longFiles(FILES, LIMITS.softLines)) {
      t.diagnostic(
        `warning: src/${file.path} has ${file.lines} lines, over ${LIMITS.softLines}: does it hold two concepts?`,
      );
    }
    const long = longFiles(FILES, LIMITS.hardLines).map((file) => `src/${file.path}: ${file.lines} lines`);
    assert.deepEqual(long, []);
  });

  it(`holds at most ${LIMITS.filesPerFolder} source files directly in any folder`, () => {
    assert.deepEqual(crowdedFolders(FILES, LIMITS.filesPerFolder).map(describeStructureViolation), []);
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

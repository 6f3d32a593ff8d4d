import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { allowedArrows, readLayerFile, readLayerTable } from "./doc.js";
import { type ImportEdge, scanImports } from "./graph.js";
import {
  checkArchitecture,
  describeViolation,
  FORBIDDEN_ARROWS,
  folderCycles,
  folderGraph,
} from "./rules.js";

/** The forbidden arrows, listed one by one; the rule data must cover every one. */
const LISTED_ARROWS: readonly [string, string][] = [
  ["port", "runtime"],
  ["port", "cli"],
  ["store", "port"],
  ["store", "runtime"],
  ["store", "history"],
  ["store", "operations"],
  ["store", "mcp"],
  ["history", "store"],
  ["compiler", "store"],
  ["compiler", "runtime"],
  ["sdl", "compiler"],
  ["mcp", "runtime"],
  ["mcp", "cli"],
  ["runtime", "cli"],
];

const edge = (from: string, to: string): ImportEdge => ({
  from,
  to,
  file: `${from}/x.ts`,
  specifier: `../${to}/index.js`,
  target: `${to}/index.ts`,
});

describe("the architecture rule engine", () => {
  it("finds a cycle through three folders and one between two, and none in a one-way graph", () => {
    const graph = folderGraph([
      edge("a", "b"),
      edge("b", "c"),
      edge("c", "a"),
      edge("d", "e"),
      edge("e", "d"),
    ]);
    assert.deepEqual(folderCycles(graph), [
      ["a", "b", "c"],
      ["d", "e"],
    ]);
    assert.deepEqual(folderCycles(folderGraph([edge("a", "b"), edge("b", "c"), edge("a", "c")])), []);
    const violations = checkArchitecture([edge("x", "y"), edge("y", "x")], []);
    assert.deepEqual(violations.map(describeViolation), ["cycle between folders: x ↔ y"]);
  });

  it("ignores imports inside one folder", () => {
    assert.deepEqual(checkArchitecture([edge("store", "store")]), []);
  });

  it("holds every listed forbidden arrow as data", () => {
    for (const [from, to] of LISTED_ARROWS) {
      assert.ok(
        FORBIDDEN_ARROWS.some((rule) => rule.from === from && rule.to.includes(to)),
        `${from} → ${to} is missing from FORBIDDEN_ARROWS`,
      );
    }
  });

  for (const [from, to] of LISTED_ARROWS) {
    it(`reports ${from} → ${to} as forbidden`, () => {
      const violations = checkArchitecture([edge(from, to), edge(to, "records")]);
      assert.deepEqual(
        violations.map((v) => v.kind),
        ["forbidden"],
      );
      assert.match(describeViolation(violations[0] as (typeof violations)[0]), new RegExp(`${from} → ${to}`));
    });
  }

  it("reports an arrow the documented table does not list, and a folder it has no row for", () => {
    const allowed = allowedArrows(
      readLayerTable(
        ["| 0 | `records` | vocabulary | nothing |", "| 1 | `store` | ledger | `records` |"].join("\n"),
      ),
    );
    const violations = checkArchitecture([edge("records", "store"), edge("store", "extra")], [], allowed);
    assert.deepEqual(
      violations.map((v) => v.kind),
      ["undocumented", "unknown-folder"],
    );
  });
});

describe("the import scan", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-architecture-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads static, type-only, re-exported and dynamic imports, and not comments", () => {
    const root = join(dir, "fixture");
    for (const folder of ["a", "b", "c", "d", "e", "f"]) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(
      join(root, "a", "x.ts"),
      [
        'import { b } from "../b/index.js";',
        'import type { C } from "../c/index.js";',
        'export { d } from "../d/deep/file.js";',
        'export const load = () => import("../e/index.js");',
        '// import { f } from "../f/index.js";',
        'import { y } from "./y.js";',
        'import { z } from "node:path";',
      ].join("\n"),
    );
    const found = scanImports(root).map((e) => `${e.from} → ${e.to}`);
    assert.deepEqual(found.sort(), ["a → a", "a → b", "a → c", "a → d", "a → e"]);
  });

  it("fails a copy of src/ with a forbidden import injected, and with a cycle injected", () => {
    const allowed = allowedArrows(readLayerFile(join(ROOT, "docs", "architecture.md")));
    const copy = join(dir, "src");
    cpSync(join(ROOT, "src"), copy, { recursive: true });
    assert.deepEqual(
      checkArchitecture(scanImports(copy), FORBIDDEN_ARROWS, allowed).map(describeViolation),
      [],
    );

    appendFileSync(join(copy, "store", "types.ts"), '\nimport type { PortAck } from "../port/index.js";\n');
    const forbidden = checkArchitecture(scanImports(copy), FORBIDDEN_ARROWS, allowed);
    assert.ok(
      forbidden.some((v) => v.kind === "forbidden" && v.edge.from === "store" && v.edge.to === "port"),
    );

    appendFileSync(join(copy, "records", "index.ts"), '\nexport type { Fence } from "../store/index.js";\n');
    const cycles = checkArchitecture(scanImports(copy), FORBIDDEN_ARROWS, allowed);
    assert.ok(
      cycles.some((v) => v.kind === "cycle" && v.folders.includes("records") && v.folders.includes("store")),
    );
  });
});

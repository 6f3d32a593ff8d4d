import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { folderOf, type ImportEdge, type SourceFile, scanFiles, scanImports } from "./graph.js";
import {
  checkStructure,
  crowdedFolders,
  describeStructureViolation,
  doorViolations,
  figures,
  fileCycles,
  LIMITS,
  longFiles,
  requiredDoor,
  subfolderCycles,
} from "./structure.js";

/** An import from `file` of `target` (both root-relative), with the specifier a source file would write. */
function imports(file: string, target: string): ImportEdge {
  const from = dirname(file)
    .split("/")
    .filter((s) => s !== ".");
  const to = target.split("/");
  let common = 0;
  while (common < from.length && from[common] === to[common]) common += 1;
  const up = from.length - common;
  const rest = to.slice(common).join("/").replace(/\.ts$/, ".js");
  const specifier = up === 0 ? `./${rest}` : `${"../".repeat(up)}${rest}`;
  return { from: folderOf(file), to: folderOf(target), file, specifier, target };
}

const sized = (path: string, lines: number): SourceFile => ({ path, lines });

describe("the door rule", () => {
  it("lets a file import a file of its own folder, and a file directly in an enclosing folder", () => {
    assert.equal(requiredDoor("runtime/manager.ts", "runtime/invocation.ts"), undefined);
    assert.equal(requiredDoor("runtime/scheduler/book.ts", "runtime/types.ts"), undefined);
    assert.equal(requiredDoor("runtime/scheduler/deep/x.ts", "runtime/types.ts"), undefined);
    assert.equal(requiredDoor("cli/main.ts", "index.ts"), undefined);
  });

  it("lets a file import the door of a sibling folder, of its own subfolder and of an ancestor's subfolder", () => {
    assert.equal(requiredDoor("cli/main.ts", "runtime/index.ts"), undefined);
    assert.equal(requiredDoor("index.ts", "runtime/index.ts"), undefined);
    assert.equal(requiredDoor("runtime/manager.ts", "runtime/scheduler/index.ts"), undefined);
    assert.equal(requiredDoor("runtime/scheduler/book.ts", "runtime/recovery/index.ts"), undefined);
    assert.equal(requiredDoor("runtime/scheduler/deep/x.ts", "runtime/recovery/index.ts"), undefined);
  });

  it("names the door for a file inside another folder, however deep", () => {
    assert.equal(requiredDoor("cli/main.ts", "history/types.ts"), "history/index.ts");
    assert.equal(requiredDoor("store/postgres/rows.ts", "store/sql/records.ts"), "store/sql/index.ts");
    assert.equal(
      requiredDoor("runtime/manager.ts", "runtime/scheduler/book.ts"),
      "runtime/scheduler/index.ts",
    );
    assert.equal(requiredDoor("index.ts", "runtime/scheduler/book.ts"), "runtime/index.ts");
  });

  it("refuses the door of a folder that is not a direct child of the shared folder", () => {
    assert.equal(requiredDoor("cli/main.ts", "runtime/scheduler/index.ts"), "runtime/index.ts");
    assert.equal(requiredDoor("runtime/a/x.ts", "runtime/b/c/index.ts"), "runtime/b/index.ts");
    assert.equal(requiredDoor("runtime/manager.ts", "runtime/a/b/index.ts"), "runtime/a/index.ts");
  });

  it("reports each importing file and specifier once, with the door to use and whether it exists", () => {
    const edges = [
      imports("cli/main.ts", "runtime/index.ts"),
      imports("cli/timeline.ts", "history/types.ts"),
      imports("cli/timeline.ts", "history/types.ts"),
      imports("store/postgres/rows.ts", "store/sql/records.ts"),
    ];
    const tree = ["cli/main.ts", "cli/timeline.ts", "history/index.ts", "history/types.ts"];
    assert.deepEqual(
      doorViolations(
        edges,
        tree.map((path) => sized(path, 1)),
      ).map(describeStructureViolation),
      [
        "cli/timeline.ts imports ../history/types.js, a file inside history/: import its door history/index.ts",
        "store/postgres/rows.ts imports ../sql/records.js, a file inside store/sql/: import its door store/sql/index.ts (which it does not have yet)",
      ],
    );
    assert.equal(doorViolations(edges).length, 2);
  });
});

describe("the circle rules", () => {
  it("finds a circle of three files across folders and one of two, type-only imports counting like any", () => {
    const violations = fileCycles([
      imports("a/x.ts", "b/index.ts"),
      imports("b/index.ts", "c/index.ts"),
      imports("c/index.ts", "a/x.ts"),
      imports("d/p.ts", "d/q.ts"),
      imports("d/q.ts", "d/p.ts"),
      imports("d/q.ts", "d/r.ts"),
    ]);
    assert.deepEqual(violations.map(describeStructureViolation), [
      "circle of 3 files (a/x.ts, b/index.ts, c/index.ts): a/x.ts imports ../b/index.js; b/index.ts imports ../c/index.js; c/index.ts imports ../a/x.js",
      "circle of 2 files (d/p.ts, d/q.ts): d/p.ts imports ./q.js; d/q.ts imports ./p.js",
    ]);
  });

  it("finds none in a one-way graph, and finds a file that imports itself", () => {
    const oneWay = [imports("a/x.ts", "a/y.ts"), imports("a/y.ts", "a/z.ts"), imports("a/x.ts", "a/z.ts")];
    assert.deepEqual(fileCycles(oneWay), []);
    assert.deepEqual(
      fileCycles([imports("a/x.ts", "a/x.ts")]).map((v) => v.kind === "file-cycle" && v.files),
      [["a/x.ts"]],
    );
  });

  it("shows one shortest circle of a larger component, marked as an example", () => {
    const [violation] = fileCycles([
      imports("a/index.ts", "a/p.ts"),
      imports("a/p.ts", "a/index.ts"),
      imports("a/index.ts", "a/q.ts"),
      imports("a/q.ts", "a/r.ts"),
      imports("a/r.ts", "a/index.ts"),
    ]);
    assert.ok(violation);
    assert.equal(
      describeStructureViolation(violation),
      "circle of 4 files (a/index.ts, a/p.ts, a/q.ts, a/r.ts), e.g. a/index.ts imports ./p.js; a/p.ts imports ./index.js",
    );
  });

  it("finds a circle between sibling subfolders that no circle of files shows", () => {
    const edges = [
      imports("runtime/a/x.ts", "runtime/b/index.ts"),
      imports("runtime/b/y.ts", "runtime/a/index.ts"),
      imports("runtime/a/index.ts", "runtime/a/z.ts"),
      imports("runtime/b/index.ts", "runtime/b/w.ts"),
    ];
    assert.deepEqual(fileCycles(edges), []);
    assert.deepEqual(subfolderCycles(edges).map(describeStructureViolation), [
      "circle between subfolders of runtime/: a ↔ b: runtime/a/x.ts imports ../b/index.js; runtime/b/y.ts imports ../a/index.js",
    ]);
  });

  it("finds it at any depth, and not between a folder's own files and its subfolders or at the root", () => {
    const deep = [
      imports("store/sql/p/x.ts", "store/sql/q/index.ts"),
      imports("store/sql/q/y.ts", "store/sql/p/index.ts"),
    ];
    assert.deepEqual(
      subfolderCycles(deep).map((v) => v.kind === "subfolder-cycle" && [v.folder, ...v.subfolders]),
      [["store/sql", "p", "q"]],
    );
    const notSiblings = [
      imports("runtime/manager.ts", "runtime/a/index.ts"),
      imports("runtime/a/x.ts", "runtime/manager.ts"),
      imports("cli/x.ts", "store/index.ts"),
      imports("store/y.ts", "cli/index.ts"),
    ];
    assert.deepEqual(subfolderCycles(notSiblings), []);
  });
});

describe("the size rules", () => {
  const files = [sized("a/at-soft.ts", 450), sized("a/over-soft.ts", 451), sized("b/at-hard.ts", 800)];

  it("lists the files over the soft limit, longest first, and fails only those over the hard limit", () => {
    const tree = [...files, sized("b/over-hard.ts", 801)];
    assert.deepEqual(
      longFiles(tree, LIMITS.softLines).map((f) => f.path),
      ["b/over-hard.ts", "b/at-hard.ts", "a/over-soft.ts"],
    );
    assert.deepEqual(checkStructure([], files), []);
    assert.deepEqual(checkStructure([], tree).map(describeStructureViolation), [
      "b/over-hard.ts has 801 lines, over the limit of 800",
    ]);
  });

  it("fails a folder holding more than 15 source files directly, with its count", () => {
    const folder = (name: string, count: number, prefix = ""): SourceFile[] =>
      Array.from({ length: count }, (_, i) => sized(`${prefix}${name}/f${i}.ts`, 10));
    const tree = [
      ...folder("full", 15),
      ...folder("over", 16),
      ...folder("split", 10),
      ...folder("part", 10, "split/"),
      ...Array.from({ length: 17 }, (_, i) => sized(`top${i}.ts`, 1)),
    ];
    assert.deepEqual(crowdedFolders(tree, LIMITS.filesPerFolder).map(describeStructureViolation), [
      "the root folder holds 17 source files, over the limit of 15",
      "over/ holds 16 source files, over the limit of 15",
    ]);
  });

  it("counts the figures the architecture script prints from the same rules", () => {
    const edges = [imports("a/x.ts", "b/inner.ts"), imports("a/x.ts", "a/y.ts"), imports("a/y.ts", "a/x.ts")];
    const tree = [
      ...files,
      sized("b/over-hard.ts", 900),
      ...Array.from({ length: 16 }, (_, i) => sized(`c/f${i}.ts`, 1)),
    ];
    assert.deepEqual(figures(edges, tree), {
      crowdedFolders: 1,
      filesOverHard: 1,
      fileCycles: 1,
      doorViolations: 1,
      filesOverSoft: 3,
    });
  });
});

describe("the tree scan", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-structure-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads each import's target file and each file's lines, and the rules catch a reach past a door", () => {
    const write = (path: string, lines: readonly string[]): void => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), lines.map((line) => `${line}\n`).join(""));
    };
    write("a/x.ts", ['import type { B } from "../b/inner/deep.js";', 'export { y } from "./y.js";']);
    write("a/y.ts", ['export const y = () => import("./x.js");']);
    write("b/inner/deep.ts", ["export type B = 1;"]);
    assert.deepEqual(
      scanImports(dir).map((e) => `${e.file} → ${e.target}`),
      ["a/x.ts → b/inner/deep.ts", "a/x.ts → a/y.ts", "a/y.ts → a/x.ts"],
    );
    assert.deepEqual(scanFiles(dir), [sized("a/x.ts", 2), sized("a/y.ts", 1), sized("b/inner/deep.ts", 1)]);
    assert.deepEqual(
      checkStructure(scanImports(dir), scanFiles(dir)).map((v) => v.kind),
      ["door", "file-cycle"],
    );
  });
});

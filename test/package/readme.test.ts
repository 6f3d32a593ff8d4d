import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";

/** Every ```ts block of a markdown file, with the line it starts on. */
function typescriptBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```(?:ts|typescript)\s*$/.test(lines[i] ?? "")) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== "```") end += 1;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** README.md, then every markdown file under docs/, by path. */
function markdownFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? under(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : [],
    );
  return ["README.md", ...under("docs").sort()];
}

/** Every TypeScript block of the README and the docs, each named for the file and line it comes from. */
const BLOCKS = markdownFiles().flatMap((file) =>
  typescriptBlocks(readFileSync(join(ROOT, file), "utf8")).map((b) => ({ ...b, file })),
);
const project = mkdtempSync(join(tmpdir(), "raes-readme-"));
/** The README's line that makes a fresh project: `npm init -y` and whatever it adds to that line. */
const README_INIT = /^npm init -y.*$/m;

/**
 * A user's project: raes-ts installed (a link to this package, so its built types and dist are what
 * resolves), the example files copied beside the code as the README says, and the repository's strict
 * compiler options without the `paths` that point inside src/.
 */
before(() => {
  mkdirSync(join(project, "node_modules", "@types"), { recursive: true });
  symlinkSync(ROOT, join(project, "node_modules", "raes-ts"), "dir");
  symlinkSync(
    join(ROOT, "node_modules", "@types", "node"),
    join(project, "node_modules", "@types", "node"),
    "dir",
  );
  symlinkSync(join(ROOT, "examples"), join(project, "examples"), "dir");
  // The project as the README makes it: `npm init -y`, then its own line that sets the module type.
  const init = README_INIT.exec(readFileSync(join(ROOT, "README.md"), "utf8"))?.[0];
  assert.ok(init, "the README says how to make the project");
  const made = spawnSync("/bin/sh", ["-c", init], { cwd: project, encoding: "utf8", timeout: 60_000 });
  assert.equal(made.status, 0, made.stderr);
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as {
    compilerOptions: Record<string, unknown>;
  };
  const { paths: _paths, ...options } = compilerOptions;
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...options, noEmit: true }, include: ["*.ts"] }),
  );
  for (const [n, block] of BLOCKS.entries())
    writeFileSync(join(project, `block-${n + 1}.ts`), `${block.code}\n`);
});
after(() => rmSync(project, { recursive: true, force: true }));

describe("README.md and docs/ TypeScript blocks", () => {
  it("has the harness block", () => {
    assert.ok(BLOCKS.some((b) => b.file === "README.md" && b.code.includes("class MyHarness")));
  });

  it("every block type-checks as pasted, against the built package's types", () => {
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", project],
      { encoding: "utf8" },
    );
    const where = BLOCKS.map((b, n) => `block-${n + 1}.ts = ${b.file} line ${b.line}`).join(", ");
    assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}\n(${where})`);
  });

  it("the project the README makes is an ES module project", () => {
    const made = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { type?: string };
    assert.equal(made.type, "module");
  });

  it("the harness block runs as pasted on the example scenario and a temp SQLite store", () => {
    const n = BLOCKS.findIndex((b) => b.code.includes("class MyHarness"));
    const run = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), `block-${n + 1}.ts`], {
      cwd: project,
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /participant\.behavior\.participant-agent: completed/);
    const db = join(project, ".raes", "control-plane.db");
    assert.ok(readFileSync(db).length > 0, "the run wrote its store");
  });

  it("every other block runs as pasted", () => {
    for (const [n, block] of BLOCKS.entries()) {
      if (block.code.includes("class MyHarness")) continue;
      const run = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), `block-${n + 1}.ts`], {
        cwd: project,
        encoding: "utf8",
        timeout: 120_000,
      });
      assert.equal(run.status, 0, `${block.file} line ${block.line}: ${run.stderr}`);
    }
  });
});

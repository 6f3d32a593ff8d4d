import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { packInto } from "../helpers/packed.js";

const project = mkdtempSync(join(tmpdir(), "raes-packed-"));
const installed = join(project, "node_modules", "raes-ts");
const TSX = import.meta.resolve("tsx");
let files: string[] = [];
let tarball = "";

function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: project,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, ...env },
  });
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

/**
 * The tarball installed as npm lays it out. Its dependencies come from this checkout's node_modules
 * (linked as the package's own node_modules) so the test needs neither the registry nor a compiler.
 */
before(() => {
  const packed = packInto(project);
  files = [...packed.files];
  tarball = packed.tarball;
  symlinkSync(join(ROOT, "node_modules"), join(installed, "node_modules"), "dir");
});
after(() => rmSync(project, { recursive: true, force: true }));

describe("the packed tarball", () => {
  it("ships the LICENSE, the README, dist and examples, and no source or tests", () => {
    for (const file of ["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts"]) {
      assert.ok(files.includes(file), file);
    }
    assert.match(
      readFileSync(join(installed, "LICENSE"), "utf8"),
      /Apache License\s+Version 2\.0, January 2004/,
    );
    assert.deepEqual(
      files.filter((f) => f.startsWith("src/") || f.startsWith("test/")),
      [],
    );
  });

  it("ships no source map, and no file that names a map or a source it does not ship", () => {
    assert.deepEqual(
      files.filter((f) => f.endsWith(".map")),
      [],
    );
    for (const file of files.filter((f) => /\.(?:js|d\.ts)$/.test(f))) {
      const text = readFileSync(join(installed, file), "utf8");
      for (const [, map] of text.matchAll(/^\/\/# sourceMappingURL=(.+)$/gm)) {
        const target = relative(installed, resolve(dirname(join(installed, file)), map ?? ""));
        assert.ok(files.includes(target), `${file} names the source map ${map}, which is not in the package`);
      }
    }
  });

  it("its types resolve for ESM consumers: attw passes the esm-only profile, and flags only what ESM-only means", () => {
    const attw = join(
      dirname(createRequire(import.meta.url).resolve("@arethetypeswrong/cli/package.json")),
      "dist",
      "index.js",
    );
    const result = run(process.execPath, [attw, tarball, "--profile", "esm-only", "--format", "json"]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout) as {
      problems: Record<string, { entrypoint: string; resolutionKind: string }[]>;
    };
    const problems = Object.values(report.problems).flat();
    // What the default profile reports for an ESM-only package (README, "Install"): CommonJS
    // `require` (node16-cjs) and the pre-exports resolution (node10) are the profile's ignored ones.
    for (const problem of problems)
      assert.ok(["node10", "node16-cjs"].includes(problem.resolutionKind), JSON.stringify(problem));
    assert.ok(
      problems.some((p) => p.entrypoint === "." && p.resolutionKind === "node16-cjs"),
      "attw no longer sees raes-ts as ESM-only: update the README's install note",
    );
  });

  it("CommonJS code loads it with import(), and with require() where Node loads ES modules synchronously", (t) => {
    writeFileSync(
      join(project, "load.cjs"),
      `import("raes-ts").then((m) => console.log(typeof m.openControlPlaneStore, typeof require));\n`,
    );
    const imported = run(process.execPath, ["load.cjs"]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout, "function function\n");
    if (process.features.require_module !== true) return t.skip("this Node cannot require() an ES module");
    writeFileSync(
      join(project, "require.cjs"),
      `console.log(typeof require("raes-ts").openControlPlaneStore, typeof require("raes-ts/demo").DemoHarnessRuntime);\n`,
    );
    const required = run(process.execPath, ["require.cjs"]);
    assert.equal(required.status, 0, required.stderr);
    assert.equal(required.stdout, "function function\n");
  });

  it("every relative import of a shipped example stays inside the package", () => {
    const examples = files.filter((f) => f.startsWith("examples/") && /\.(?:ts|js|mjs)$/.test(f));
    assert.ok(examples.length >= 2, examples.join(", "));
    for (const example of examples) {
      const source = readFileSync(join(installed, example), "utf8");
      for (const [, specifier] of source.matchAll(/from\s+["'](\.[^"']+)["']/g)) {
        const target = relative(installed, resolve(dirname(join(installed, example)), specifier ?? ""));
        const shipped = [target, target.replace(/\.js$/, ".ts")].some((t) => files.includes(t));
        assert.ok(shipped, `${example} imports ${specifier}, which is not in the package`);
      }
    }
  });

  it("each shipped example module loads from the installed package (plain node for .js, tsx for .ts)", () => {
    const examples = listFiles(join(installed, "examples")).filter((f) => /\.(?:ts|js|mjs)$/.test(f));
    for (const example of examples) {
      const args = example.endsWith(".ts") ? ["--import", TSX, example] : [example];
      const result = run(process.execPath, args);
      assert.equal(result.status, 0, `${relative(project, example)}: ${result.stderr}`);
    }
  });

  it("the raes bin runs: --version, validate, and run with the shipped demo harness (.ts)", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      bin: { raes: string };
    };
    const bin = join(installed, manifest.bin.raes);
    const version = run(process.execPath, [bin, "--version"]);
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
    const E = join(installed, "examples");
    const scenario = join(E, "enterprise-participant-evidence-loop.sdl.yaml");
    const validate = run(process.execPath, [bin, "validate", scenario]);
    assert.equal(validate.status, 0, validate.stderr);
    const demoRun = run(process.execPath, [
      bin,
      "run",
      scenario,
      "--manifest",
      join(E, "harness-backend.manifest.json"),
      "--runtime",
      join(E, "demo", "harness-runtime.ts"),
      "--steps",
      "2",
      "--store",
      "sqlite:.raes/packed.db",
      "--json",
    ]);
    // The demo's second invocation ends on a stalled call: indeterminate, so the run exits 1 naming it.
    assert.equal(demoRun.status, 1, demoRun.stderr);
    const summary = JSON.parse(demoRun.stdout) as { invocations: number; resolve: string[] };
    assert.equal(summary.invocations, 2);
    assert.equal(summary.resolve.length, 2);
    const history = run(process.execPath, [bin, "history", "--store", "sqlite:.raes/packed.db", "--json"]);
    assert.equal(history.status, 0, history.stderr);
    assert.ok((JSON.parse(history.stdout) as { events: unknown[] }).events.length > 0);
    // The timeline page's browser code and stylesheet are inlined from the installed dist/ alone.
    const page = run(process.execPath, [
      bin,
      "history",
      "--store",
      "sqlite:.raes/packed.db",
      "--html",
      "t.html",
    ]);
    assert.equal(page.status, 0, page.stderr);
    const html = readFileSync(join(project, "t.html"), "utf8");
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    assert.equal(html.match(/<script>/g)?.length, 1);
    assert.match(html, /<script>\(\(\) => \{[\s\S]*function rowDrawer\(S\)[\s\S]*\}\)\(\);\n<\/script>/);
    assert.match(html, /<style>[\s\S]*\.invocation \{[\s\S]*<\/style>/);
  });
});

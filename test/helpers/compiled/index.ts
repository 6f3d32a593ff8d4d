/**
 * Test children under plain node. A child started with `node --import tsx` pays tsx's loader (about
 * 0.3 s of CPU) on every start; `npm test` starts hundreds of them on a two-core machine. When
 * `dist/` is a current build of `src/`, a TypeScript child is bundled once per change of its inputs
 * into `node_modules/.cache/raes-test-children/`, importing `dist/` for every `src/` module, and
 * started without tsx. A stale or missing build never runs: the child then starts under tsx from
 * source, so a test never checks old code.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import { ROOT } from "../example.js";

const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");
const TEST = join(ROOT, "test") + sep;
const CACHE = join(ROOT, "node_modules", ".cache", "raes-test-children");
const BUILD = join(ROOT, "test", "helpers", "compiled", "build.ts");

let current: boolean | undefined;

/** The timeline page's browser sources, which the build leaves out: `page/compiled.ts` holds them as text. */
const BROWSER = join(SRC, "timeline", "page", "browser");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === BROWSER ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Whether dist/ holds a build of every source file under src/, each at least as new as its source. */
export function distIsCurrent(): boolean {
  if (process.env.RAES_TEST_FROM_SOURCE === "1") return false;
  current ??= sources(SRC).every((file) => {
    const built = join(DIST, relative(SRC, file)).replace(/\.ts$/, ".js");
    try {
      return statSync(built).mtimeMs >= statSync(file).mtimeMs;
    } catch {
      return false;
    }
  });
  return current;
}

/** Whether the bundle at `out` is newer than every input its last build read. */
function fresh(out: string, meta: string): boolean {
  try {
    const built = statSync(out).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(meta, "utf8")) as { inputs: string[] };
    return inputs.every((input) => statSync(input).mtimeMs <= built);
  } catch {
    return false;
  }
}

const built = new Map<string, string>();

/**
 * The plain-JavaScript build of the TypeScript module `script` (under test/), or undefined
 * when dist/ is not current and the child must start under tsx instead.
 */
export function compiledChild(script: string): string | undefined {
  const path = resolve(ROOT, script);
  if (!path.startsWith(TEST) || !/\.ts$/.test(path) || !distIsCurrent()) return undefined;
  const known = built.get(path);
  if (known !== undefined) return known;
  const key = createHash("sha256").update(path).digest("hex").slice(0, 12);
  const out = join(CACHE, `${basename(path, ".ts")}-${key}.mjs`);
  const meta = `${out}.json`;
  if (!fresh(out, meta)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync(process.execPath, ["--import", "tsx", BUILD, path, out, meta], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
  }
  built.set(path, out);
  return out;
}

/** The node arguments that start the TypeScript test module `script`: its build when it has one, else under tsx. */
export function childNodeArgs(script: string, args: readonly string[] = []): string[] {
  const compiled = compiledChild(script);
  return compiled === undefined ? ["--import", "tsx", script, ...args] : [compiled, ...args];
}

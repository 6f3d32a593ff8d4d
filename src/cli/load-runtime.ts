import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ParticipantRuntime } from "../runtime/index.js";
import { CliErrorCode } from "./exit.js";

const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/;

function isClass(value: (...args: unknown[]) => unknown): boolean {
  return (
    /^class[\s{]/.test(Function.prototype.toString.call(value)) ||
    typeof value.prototype?.admitAction === "function"
  );
}

/**
 * Where tsx's ESM API is: next to the module first (the user's project), then next to raes-ts.
 * `require.resolve` would pick the CommonJS build, so the ESM file is read from tsx's exports map.
 */
function findTsx(modulePath: string): string | undefined {
  for (const base of [modulePath, fileURLToPath(import.meta.url)]) {
    try {
      const manifest = createRequire(base).resolve("tsx/package.json");
      const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
        exports?: { "./esm/api"?: { import?: { default?: string } } };
      };
      const entry = exports?.["./esm/api"]?.import?.default;
      if (entry !== undefined) return join(dirname(manifest), entry);
    } catch {
      // not installed there; try the next place
    }
  }
  return undefined;
}

/**
 * `--runtime MODULE` names a module that builds no runtime: its default export is not a runtime
 * class or factory function, or it built no runtime object. The file the command line names is
 * wrong, as a missing one is, so `raes run` exits 2 before anything is written.
 */
export class RuntimeModuleError extends Error {
  readonly code = CliErrorCode.runtime_module_invalid;
  constructor(message: string) {
    super(message);
    this.name = "RuntimeModuleError";
  }
}

/** Registers tsx's ESM loader so a TypeScript runtime module imports as it would under `tsx`. */
async function registerTypeScript(path: string): Promise<void> {
  const api = findTsx(resolve(path));
  if (api === undefined) {
    throw new RuntimeModuleError(
      `${path} is TypeScript and tsx, the loader raes-ts uses for it, is not installed: ` +
        "run `npm install --save-dev tsx` in your project, or compile the module to JavaScript and pass the .js file",
    );
  }
  const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
  register();
}

/** Imports MODULE (TypeScript through tsx) and builds its default export: a runtime class (no arguments) or a factory. */
export async function loadRuntimeModule(path: string): Promise<ParticipantRuntime> {
  if (TYPESCRIPT.test(path)) await registerTypeScript(path);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  } catch (error) {
    // A syntax error, a missing dependency or a throw at its top level: the module named is wrong.
    throw new RuntimeModuleError(
      `${path} could not be imported: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const exported = module.default;
  if (typeof exported !== "function") {
    throw new RuntimeModuleError(
      `${path}: the default export must be a runtime class or a factory function${exported === undefined ? " (the module has no default export)" : ""}`,
    );
  }
  const build = exported as (...args: unknown[]) => unknown;
  let runtime: unknown;
  try {
    runtime = isClass(build) ? new (build as unknown as new () => unknown)() : await build();
  } catch (error) {
    // The module's own constructor or factory threw: the module named builds no runtime.
    throw new RuntimeModuleError(
      `${path}: building the runtime threw: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (runtime === null || typeof runtime !== "object") {
    throw new RuntimeModuleError(`${path}: the default export did not produce a runtime object`);
  }
  // Checked here, before anything is written: without it the runtime's registration refuses it later.
  if (typeof (runtime as { admitAction?: unknown }).admitAction !== "function") {
    throw new RuntimeModuleError(`${path}: the runtime it built has no admitAction method`);
  }
  return runtime as ParticipantRuntime;
}

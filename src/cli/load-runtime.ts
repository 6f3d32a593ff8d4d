import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ParticipantRuntime } from "../runtime/index.js";

function isClass(value: (...args: unknown[]) => unknown): boolean {
  return (
    /^class[\s{]/.test(Function.prototype.toString.call(value)) ||
    typeof value.prototype?.admitAction === "function"
  );
}

/** Imports MODULE and builds its default export: a runtime class (no arguments) or a factory. */
export async function loadRuntimeModule(path: string): Promise<ParticipantRuntime> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  const exported = module.default;
  if (typeof exported !== "function") {
    throw new Error(`${path}: the default export must be a runtime class or a factory function`);
  }
  const build = exported as (...args: unknown[]) => unknown;
  const runtime = isClass(build) ? new (build as unknown as new () => unknown)() : await build();
  if (runtime === null || typeof runtime !== "object") {
    throw new Error(`${path}: the default export did not produce a runtime object`);
  }
  return runtime as ParticipantRuntime;
}

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ManifestCheck } from "../../src/manifest/index.js";

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The shipped example manifest. */
export const EXAMPLE_MANIFEST_PATH = join(ROOT, "examples", "harness-backend.manifest.json");
/** The manifest fixtures folder. */
export const MANIFEST_FIXTURES = join(ROOT, "test", "fixtures", "manifests");

/** A JSON document as edited by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests edit JSON documents at arbitrary depth
export type Json = Record<string, any>;

/** A fresh copy of the shipped example manifest. */
export function exampleManifest(): Json {
  return JSON.parse(readFileSync(EXAMPLE_MANIFEST_PATH, "utf8"));
}

/** A fresh copy of a manifest fixture. */
export function fixtureManifest(name: string): Json {
  return JSON.parse(readFileSync(join(MANIFEST_FIXTURES, name), "utf8"));
}

/** The example manifest after an edit. */
export function editedExample(edit: (manifest: Json) => void): Json {
  const manifest = exampleManifest();
  edit(manifest);
  return manifest;
}

/** A check's diagnostics reduced to what the tests pin: code, path and severity. */
export function findings(check: ManifestCheck): { code: string; path: string; severity: string }[] {
  return check.diagnostics.map(({ code, path, severity }) => ({ code, path, severity }));
}

/** Shorthand for an expected error finding. */
export function error(code: string, path: string): { code: string; path: string; severity: string } {
  return { code, path, severity: "error" };
}

/** Shorthand for an expected warning finding. */
export function warning(code: string, path: string): { code: string; path: string; severity: string } {
  return { code, path, severity: "warning" };
}

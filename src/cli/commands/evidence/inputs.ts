import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { compileScenario } from "../../../compiler/index.js";
import { type BundleInput, manifestDigest } from "../../../evidence/index.js";
import { jcsDigest } from "../../../records/index.js";
import { loadScenario } from "../../../sdl/index.js";

/**
 * A scenario's anchor digest from its bytes, as `raes run` computes the chains' `scenario_digest`:
 * the RFC 8785 digest of the model compiled from it; undefined when it is no valid scenario.
 */
export function scenarioDigest(bytes: Buffer): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const { scenario } = loadScenario(text, { source: "text" });
  return scenario === undefined ? undefined : jcsDigest(compileScenario(scenario));
}

/** An `--include-inputs` file as `writeBundle` takes it: its exact bytes, and its digest as a scenario and as a manifest. */
export function bundleInput(file: string): BundleInput {
  const bytes = readFileSync(file);
  const scenario = scenarioDigest(bytes);
  const manifest = manifestDigest(bytes);
  return {
    name: basename(file),
    bytes,
    anchors: {
      ...(scenario === undefined ? {} : { scenario }),
      ...(manifest === undefined ? {} : { manifest }),
    },
  };
}

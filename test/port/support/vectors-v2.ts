import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { compileScenario, loadScenario, type RuntimeModel } from "../../../src/index.js";
import { ROOT } from "../../helpers/example.js";

const V2_EXAMPLE = join(ROOT, "examples", "enterprise-participant-activity-v2.sdl.yaml");
const V2_MANIFEST = join(ROOT, "examples", "harness-backend-v2.manifest.json");

/** The v2 example's control with a public test seed. */
export const V2_CONTROLS = [
  { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
];

/** The v2 example manifest JSON. */
export function v2Manifest(): Record<string, unknown> {
  return JSON.parse(readFileSync(V2_MANIFEST, "utf8")) as Record<string, unknown>;
}

let cached: RuntimeModel | undefined;

/**
 * The v2 example with bursts of one, so each due tick runs exactly one attempt (a vector runs in one
 * invocation), and room for a second attempt, so a scheduler the vector leaves running stays running.
 */
export function v2OneAtATimeModel(): RuntimeModel {
  if (cached) return cached;
  const payload = parse(readFileSync(V2_EXAMPLE, "utf8"));
  const policy = payload.behavior_specifications["participant-behavior"].autonomous_execution;
  Object.assign(policy, { max_burst_size: 1, max_occurrences: 2, max_action_attempts: 2 });
  const { scenario, diagnostics } = loadScenario(stringify(payload), { source: "text" });
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!scenario || errors.length > 0)
    throw new Error(`the v2 vector model does not load: ${JSON.stringify(errors)}`);
  cached = compileScenario(scenario);
  return cached;
}

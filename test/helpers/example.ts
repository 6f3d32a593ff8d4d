import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileScenario, loadScenario, type RuntimeModel } from "../../src/index.js";

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The example scenario shipped in `examples/` (a byte-identical copy of the shared one). */
export const EXAMPLE_SCENARIO = join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml");
/** The example manifest shipped in `examples/`. */
export const EXAMPLE_MANIFEST = join(ROOT, "examples", "harness-backend.manifest.json");
/** `raes mcp-gateway` host mode's inputs for the example: `--scenario` and `--manifest`. */
export const EXAMPLE_HOST_INPUTS = ["--scenario", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST] as const;

/** The example participant and the addresses the example scenario uses. */
export const EXAMPLE = {
  participant: "participant.behavior.participant-agent",
  policy: "participant.autonomous-execution.participant-behavior",
  affordance: "participant.behavior-specification.participant-behavior.tool-affordance.portal-client",
  action: "participant.action-contract.probe-customer-portal-login",
  boundary: "participant.observation-boundary.participant-view",
  portal: "provision.node.customer-portal.service.http",
  implementation: "participant-implementation-manifests.green-worker.v1",
} as const;

let cached: RuntimeModel | undefined;

/** The compiled example model. */
export function exampleModel(): RuntimeModel {
  if (cached) return cached;
  const { scenario, diagnostics } = loadScenario(EXAMPLE_SCENARIO);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !scenario) throw new Error(`example does not load: ${JSON.stringify(errors)}`);
  cached = compileScenario(scenario);
  return cached;
}

/** A fresh copy of the example manifest JSON, which tests edit freely. */
// biome-ignore lint/suspicious/noExplicitAny: manifest JSON is edited field by field in tests
export function exampleManifest(): Record<string, any> {
  return JSON.parse(readFileSync(EXAMPLE_MANIFEST, "utf8"));
}

/** The example manifest declaring every execution-control action, so `raes control` may drive its participant. */
// biome-ignore lint/suspicious/noExplicitAny: a manifest is JSON; tests edit it freely
export function controlledManifest(): Record<string, any> {
  const manifest = exampleManifest();
  manifest.participant_runtime.supports_execution_control = true;
  manifest.participant_runtime.supported_execution_control_actions = [
    "start",
    "pause",
    "resume",
    "drain",
    "reset",
    "teardown",
  ];
  return manifest;
}

/** The example model with the policy's attempt limit raised, for long runs. */
export function modelWithAttempts(maxActionAttempts: number): RuntimeModel {
  const model = exampleModel();
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [k, { ...p, maxActionAttempts }]),
  );
  return { ...model, autonomousPolicies: policies };
}

/**
 * The example model with its cadence starting at `startTick` (and room for `maxActionAttempts`): with
 * a start after tick 0 nothing is due at open, so a test can script the runtime before its first step.
 */
export function modelStartingAt(startTick: number, maxActionAttempts = 2): RuntimeModel {
  const model = modelWithAttempts(maxActionAttempts);
  const constraints = Object.fromEntries(
    Object.entries(model.temporalConstraints).map(([k, c]) => [
      k,
      c.cadenceTicks === null ? c : { ...c, startTick },
    ]),
  );
  return { ...model, temporalConstraints: constraints };
}

/**
 * The example model with its one participant cloned into `count` participants of the same policy
 * (`<example participant>-<k>`, k from 1), each with its own affordance bindings, for many-participant runs.
 */
export function modelWithParticipants(count: number, maxActionAttempts = 2): RuntimeModel {
  const model = modelWithAttempts(maxActionAttempts);
  const original = model.participants[EXAMPLE.participant];
  if (!original) throw new Error("the example has no participant");
  const addresses = Array.from({ length: count }, (_, k) => `${EXAMPLE.participant}-${k + 1}`);
  const participants = Object.fromEntries(addresses.map((address) => [address, { ...original, address }]));
  const bindings = model.affordanceBindings.filter((b) => b.participantAddress === EXAMPLE.participant);
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [k, { ...p, participantAddresses: addresses }]),
  );
  return {
    ...model,
    participants,
    autonomousPolicies: policies,
    affordanceBindings: addresses.flatMap((participantAddress) =>
      bindings.map((b) => ({ ...b, participantAddress })),
    ),
  };
}

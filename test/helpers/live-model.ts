import type { RuntimeModel } from "../../src/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "./example.js";

/** A second participant, scheduled by the example policy beside the example's own. */
export const SECOND_PARTICIPANT = "participant.behavior.participant-agent-b";

/**
 * The example model for live runs, first due at step 1: `attempts` per participant, failures that do not stop the
 * scheduler, and optionally a second participant with the same affordance bindings.
 */
export function liveModel(
  options: { readonly attempts?: number; readonly second?: boolean; readonly failurePolicy?: string } = {},
): RuntimeModel {
  // The cadence starts at tick 10, so nothing runs inside open() and step k runs invocation k - 1.
  const model = modelStartingAt(10);
  const participants = [EXAMPLE.participant, ...(options.second ? [SECOND_PARTICIPANT] : [])];
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [
      k,
      {
        ...p,
        participantAddresses: participants,
        maxActionAttempts: options.attempts ?? 1000,
        failurePolicy: options.failurePolicy ?? "continue",
      },
    ]),
  );
  const second = options.second
    ? model.affordanceBindings
        .filter((b) => b.participantAddress === EXAMPLE.participant)
        .map((b) => ({ ...b, participantAddress: SECOND_PARTICIPANT }))
    : [];
  return {
    ...model,
    autonomousPolicies: policies,
    affordanceBindings: [...model.affordanceBindings, ...second],
  };
}

/** The example manifest with every offer's timeout_seconds set. */
// biome-ignore lint/suspicious/noExplicitAny: manifest JSON is edited field by field in tests
export function manifestWithTimeout(seconds: number): Record<string, any> {
  const manifest = exampleManifest();
  for (const offer of manifest.participant_runtime.execution_bindings) offer.timeout_seconds = seconds;
  return manifest;
}

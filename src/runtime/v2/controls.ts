import type { RuntimeModel } from "../../compiler/index.js";
import {
  controlFingerprint,
  decodePublicSeed,
  deriveStreamKey,
  RandomStreamError,
  RandomStreamProfile,
} from "../../random/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";

/** One run-supplied `agent-policy` stochastic control; never stored or logged. */
export interface StochasticControl {
  readonly controlId: string;
  readonly namespace: string;
  /** 64 hex digits. */
  readonly publicSeed: string;
}

/** A resolved control: the stream key derived once; the seed is not kept. */
export interface ResolvedControl {
  readonly controlId: string;
  readonly profileId: string;
  readonly namespace: string;
  readonly streamKey: Uint8Array;
  /** One-way fingerprint of namespace and key, committed with each v2 schedule (never the key). */
  readonly fingerprint: string;
}

/** The profiles whose policies draw from an activity stream (v3 runs v2's schedule). */
const ACTIVITY_PROFILES = new Set([
  "participant-autonomous-execution/v2",
  "participant-autonomous-execution/v3",
]);

const NAMESPACE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Resolves every control a v2 policy names, exactly once, failing closed: a duplicate or
 * malformed control, or a policy whose control the run did not supply, is a coded error.
 * Messages name control ids only, never seeds.
 */
export function resolveActivityControls(
  model: RuntimeModel,
  controls: readonly StochasticControl[],
): Map<string, ResolvedControl> {
  const byId = new Map<string, ResolvedControl>();
  for (const control of controls) {
    if (byId.has(control.controlId))
      throw new RuntimeError(
        RuntimeErrorCode.activity_control_invalid,
        `stochastic control ${control.controlId} is supplied twice`,
      );
    if (!NAMESPACE.test(control.namespace))
      throw new RuntimeError(
        RuntimeErrorCode.activity_control_invalid,
        `stochastic control ${control.controlId} has an invalid namespace`,
      );
    let streamKey: Uint8Array;
    try {
      streamKey = deriveStreamKey(
        RandomStreamProfile.blake3_xof_participant_v1,
        decodePublicSeed(control.publicSeed),
      );
    } catch (error) {
      if (!(error instanceof RandomStreamError)) throw error;
      throw new RuntimeError(
        RuntimeErrorCode.activity_control_invalid,
        `stochastic control ${control.controlId}: the public seed must be 64 hex digits`,
      );
    }
    byId.set(control.controlId, {
      controlId: control.controlId,
      profileId: RandomStreamProfile.blake3_xof_participant_v1,
      namespace: control.namespace,
      streamKey,
      fingerprint: controlFingerprint(streamKey, control.namespace),
    });
  }
  const byPolicy = new Map<string, ResolvedControl>();
  const missing: string[] = [];
  for (const policy of Object.values(model.autonomousPolicies)) {
    // v3 policies fail closed at planning before any control matters.
    if (!policy.activity || !ACTIVITY_PROFILES.has(policy.profile)) continue;
    const resolved = byId.get(policy.activity.stochasticControlRef);
    if (resolved) byPolicy.set(policy.address, resolved);
    else
      missing.push(
        `${policy.address}: stochastic control ${policy.activity.stochasticControlRef} was not supplied`,
      );
  }
  if (missing.length > 0)
    throw new RuntimeError(
      RuntimeErrorCode.activity_control_unbound,
      "an activity policy requires a stochastic control the run did not supply",
      missing,
    );
  return byPolicy;
}

/** Parses the CLI form `ID=NAMESPACE:SEED`. */
export function parseStochasticControl(text: string): StochasticControl {
  const match = /^([^=]+)=([^:]+):([0-9a-fA-F]{64})$/.exec(text);
  if (!match?.[1] || !match[2] || !match[3])
    throw new RuntimeError(
      RuntimeErrorCode.activity_control_invalid,
      "a stochastic control is ID=NAMESPACE:SEED with a 64-hex-digit seed",
    );
  return { controlId: match[1], namespace: match[2], publicSeed: match[3] };
}

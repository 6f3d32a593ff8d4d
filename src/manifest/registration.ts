import { claimDiagnostics, claimFactsOf } from "./claim.js";
import { ManifestSeverity, RegistrationErrorCode } from "./codes.js";
import type { BackendManifest } from "./types.js";

/** A participant runtime was refused at registration; `code` is a fixed `RegistrationErrorCode`. */
export class RegistrationError extends Error {
  readonly code: RegistrationErrorCode;
  constructor(code: RegistrationErrorCode, message: string) {
    super(message);
    this.name = "RegistrationError";
    this.code = code;
  }
}

/** What registration decided about the runtime. */
export interface Registration {
  /** True when the manifest claims participant-invocation-tool-actions/v1, so ports will be attached. */
  readonly toolActionsClaimed: boolean;
}

/** Looks a method up on the instance and its prototype chain; a throwing getter counts as no method. */
function isCallableMember(runtime: unknown, name: string): boolean {
  if ((typeof runtime !== "object" && typeof runtime !== "function") || runtime === null) return false;
  try {
    return typeof Reflect.get(runtime, name) === "function";
  } catch {
    return false;
  }
}

function refuse(message: string): never {
  throw new RegistrationError(RegistrationErrorCode.target_contract_mismatch, message);
}

/**
 * Registers a participant runtime against a checked manifest: refuses, with `registry.target-contract-mismatch`,
 * a runtime without a callable `admitAction`, a `time.supports_coordinated_participant_reset` manifest whose
 * runtime lacks a callable `resetMany`, an invalid claim, or a claim whose runtime lacks a callable
 * `attachInvocationToolActions`.
 */
export function registerParticipantRuntime(manifest: BackendManifest, runtime: unknown): Registration {
  const runtimeName = manifest.participantRuntime.name;
  if (!isCallableMember(runtime, "admitAction")) {
    refuse(`participant runtime for '${runtimeName}' has no callable admitAction`);
  }
  // RAES's registration: a coordinated participant reset claim needs the runtime's atomic batch reset.
  if (manifest.time?.supportsCoordinatedParticipantReset && !isCallableMember(runtime, "resetMany")) {
    refuse(
      `manifest '${manifest.name}' claims supports_coordinated_participant_reset but participant runtime ` +
        `'${runtimeName}' has no callable resetMany`,
    );
  }
  const claim = claimFactsOf(manifest);
  if (claim === undefined) return { toolActionsClaimed: false };
  const problems = claimDiagnostics(claim).filter((problem) => problem.severity === ManifestSeverity.error);
  if (problems.length > 0) {
    refuse(
      `manifest '${manifest.name}' claims participant-invocation-tool-actions but the claim is invalid: ` +
        problems.map((problem) => `${problem.code} (${problem.message})`).join("; "),
    );
  }
  if (!isCallableMember(runtime, "attachInvocationToolActions")) {
    refuse(
      `manifest '${manifest.name}' claims participant-invocation-tool-actions but participant runtime ` +
        `'${runtimeName}' has no callable attachInvocationToolActions`,
    );
  }
  return { toolActionsClaimed: true };
}

import {
  type BackendManifest,
  checkManifest,
  type ExecutionOfferIndex,
  indexExecutionOffers,
  registerParticipantRuntime,
} from "../../manifest/index.js";
import type { ToolActionLimits } from "../../port/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import { planSchedules, type ScheduleSpec } from "../schedule/index.js";
import { resolveActivityControls } from "../v2/index.js";
import { assertModelInBounds, checkedConcurrency } from "./bounded.js";
import type { RuntimeManagerOptions } from "./options.js";
import { refuseUnmeasured } from "./v3.js";

/** What `RuntimeManager.open` runs, settled from its options alone. */
export interface AdmittedOpen {
  /** The checked backend manifest, its runtime registered. */
  readonly manifest: BackendManifest;
  /** The per-invocation tool-action limits its composition claim declares, when it claims them. */
  readonly limits: ToolActionLimits | undefined;
  /** How many autonomous actions may run at once. */
  readonly inFlight: number;
  /** One schedule per participant policy, as the scenario and the manifest's offers plan them. */
  readonly specs: readonly ScheduleSpec[];
  readonly offers: ExecutionOfferIndex;
}

/**
 * Everything `RuntimeManager.open` checks before it touches a store, as RAES admits a runtime: the
 * model's bounds, the manifest and the runtime's registration against it (`runtime.manifest-invalid`,
 * `registry.*`), the schedules the scenario plans, measurement for budgets that need it, and a clock
 * reset only where the manifest supports coordinated participant reset
 * (`runtime.autonomous-execution-unsupported`). A refusal here has opened, written and leased nothing.
 */
export function admitOpen(options: RuntimeManagerOptions): AdmittedOpen {
  assertModelInBounds(options.model);
  const check = checkManifest(options.manifest);
  // Registration first: an invalid claim is a contract mismatch, not just a bad manifest.
  const registration = check.manifest
    ? registerParticipantRuntime(check.manifest, options.runtime)
    : undefined;
  if (!check.ok || !check.manifest || !registration) {
    const details = check.diagnostics.map((d) => `${d.code} ${d.path}: ${d.message}`);
    throw new RuntimeError(RuntimeErrorCode.manifest_invalid, "the backend manifest is invalid", details);
  }
  const { toolActionsClaimed } = registration;
  const time = check.manifest.time;
  const inFlight = checkedConcurrency(
    options.concurrency ?? check.manifest.participantRuntime.maxAutonomousInFlight,
  );
  const claim = check.manifest.participantRuntime.invocationToolActions;
  const limits = toolActionsClaimed ? claimedLimits(claim) : undefined;
  const v2Controls = resolveActivityControls(options.model, options.stochasticControls ?? []);
  const offers = indexExecutionOffers(check.manifest);
  const specs = planSchedules({
    v2Controls,
    model: options.model,
    offers,
    toolActionLimits: limits,
    crossingPolicyInstalled: options.crossingPolicy !== undefined,
    resourcePools: check.manifest.participantRuntime.resourceBudgets?.configuredPools ?? [],
  });
  refuseUnmeasured(options.runtime, specs);
  // RAES's admission: a progression that resets or replays its clock needs coordinated participant reset.
  if (time && !time.supportsCoordinatedParticipantReset) {
    const resetting = specs.find((s) => s.progression.resetBehavior !== "unsupported");
    if (resetting)
      throw new RuntimeError(
        RuntimeErrorCode.autonomous_execution_unsupported,
        `autonomous clock reset requires coordinated participant reset support (${resetting.policy.address})`,
      );
  }
  return { manifest: check.manifest, limits, inFlight, specs, offers };
}

/** The per-invocation tool-action limits a manifest's composition claim declares, when it has one. */
function claimedLimits(
  claim:
    | {
        readonly maxToolActionsPerInvocation: number;
        readonly maxConcurrentToolActionsPerInvocation: number;
      }
    | undefined,
): ToolActionLimits | undefined {
  return claim
    ? {
        maxToolActionsPerInvocation: claim.maxToolActionsPerInvocation,
        maxConcurrentToolActionsPerInvocation: claim.maxConcurrentToolActionsPerInvocation,
      }
    : undefined;
}

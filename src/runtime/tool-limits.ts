import type { ToolActionLimits } from "../port/index.js";

/** The per-invocation tool-action limits a manifest's composition claim declares, when it has one. */
export function claimedLimits(
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

import { decisionTime, newOwnerId } from "../../src/operations/index.js";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { deadOwnerId } from "../runtime/dead-owner.js";
import { invocation, scheduler, toolAction } from "../store/records.js";

/**
 * Whether a held call's approve would still run it (`open`), or is refused (`approvalLapsed`): the
 * runtime holding it is gone (`runtime-gone`), or its timeout has passed (`timed-out`).
 */
export type HeldLapse = "open" | "runtime-gone" | "timed-out";

/**
 * Writes one call held for approval (admitted, its approval pending) of `participant`, through the
 * store's own API as a gateway writes it, and returns its id. The participant's lease is held by this
 * test's own process (live), or for `runtime-gone` by a process of this host that has exited (as after
 * a SIGKILL). A `timed-out` call was requested ten minutes ago with a 60 s timeout; the others now,
 * with an hour's.
 */
export async function writeHeldCall(
  store: ControlPlaneStore,
  participant: string,
  lapse: HeldLapse,
): Promise<string> {
  const now = Date.now();
  const at = decisionTime(new Date(lapse === "timed-out" ? now - 600_000 : now));
  const inv = invocation({ id: `inv-${lapse}`, participantAddress: participant, createdAt: at });
  await store.openInvocation(inv, scheduler({ participantAddress: participant, attempts: 1, updatedAt: at }));
  const action = toolAction(inv, 1, {
    admittedAt: at,
    createdAt: at,
    updatedAt: at,
    approval: { state: "pending", requestedAt: at, timeoutSeconds: lapse === "timed-out" ? 60 : 3600 },
  });
  await store.insertToolAction(action);
  const owner = lapse === "runtime-gone" ? await deadOwnerId() : newOwnerId();
  if (!(await store.acquireLease(participant, owner, 3_600_000)))
    throw new Error(`the lease of ${participant} is taken`);
  return action.id;
}

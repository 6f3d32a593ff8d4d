import { toolActionTriple } from "../history/index.js";
import { transition } from "../port/index.js";
import type { ControlPlaneStore, Fence, InvocationRecord, ToolActionRecord } from "../store/index.js";
import { schedulerAfterClose } from "./lifecycle.js";

/** How recovery settled one interrupted invocation. */
export interface RecoveredInvocation {
  readonly invocationId: string;
  readonly participantAddress: string;
  readonly settlements: Readonly<Record<string, string>>;
  readonly stopped: boolean;
}

/** What recovery needs from its caller. */
export interface RecoveryOptions {
  /** Only these participants are recovered: the ones whose scheduler lease the caller holds. */
  readonly participants: ReadonlySet<string>;
  readonly now: () => string;
  readonly fenceFor: (participantAddress: string) => Fence | undefined;
  /** True when the policy's failure policy stops the scheduler after a consumed attempt. */
  readonly stopsOnFailure: (policyAddress: string) => boolean;
}

/** Settles the tool actions of one interrupted invocation by the close rules. */
export function settleInterrupted(actions: readonly ToolActionRecord[], at: string): ToolActionRecord[] {
  return [...actions]
    .sort((a, b) => a.admissionOrdinal - b.admissionOrdinal)
    .map((action) => {
      const result = transition(action, { type: "close" });
      return result.ok && result.state !== action ? { ...action, ...result.state, updatedAt: at } : action;
    });
}

/**
 * Settles every interrupted invocation of the given participants: undispatched actions withheld,
 * dispatched-without-outcome indeterminate (scheduler stopped), recorded outcomes kept, the outer
 * attempt consumed, each invocation in one transaction. Running it twice changes nothing.
 */
export async function recoverInterruptedInvocations(
  store: ControlPlaneStore,
  options: RecoveryOptions,
): Promise<RecoveredInvocation[]> {
  const open = (await store.listOpenInvocations()).filter((i) =>
    options.participants.has(i.participantAddress),
  );
  open.sort((a, b) => a.participantAddress.localeCompare(b.participantAddress) || a.ordinal - b.ordinal);
  const recovered: RecoveredInvocation[] = [];
  for (const invocation of open) recovered.push(await recoverOne(store, invocation, options));
  return recovered;
}

async function recoverOne(
  store: ControlPlaneStore,
  invocation: InvocationRecord,
  options: RecoveryOptions,
): Promise<RecoveredInvocation> {
  const at = options.now();
  const settled = settleInterrupted(await store.listToolActions({ invocationId: invocation.id }), at);
  const scheduler = await store.getScheduler(invocation.participantAddress, invocation.policyAddress);
  if (!scheduler) throw new Error(`no scheduler record for ${invocation.participantAddress}`);
  const next = schedulerAfterClose(
    scheduler,
    {
      indeterminate: settled.some((a) => a.settlement === "indeterminate"),
      outerFailed: true,
      stopsOnFailure: options.stopsOnFailure(invocation.policyAddress),
    },
    at,
  );
  const fence = options.fenceFor(invocation.participantAddress);
  await store.commitInvocation(
    {
      invocation: { ...invocation, state: "failed", updatedAt: at },
      toolActions: settled,
      events: settled.flatMap((a) => toolActionTriple(a, invocation, at)),
      scheduler: next,
    },
    ...(fence ? [fence] : []),
  );
  return {
    invocationId: invocation.id,
    participantAddress: invocation.participantAddress,
    settlements: Object.fromEntries(settled.map((a) => [a.id, a.settlement ?? ""])),
    stopped: next.lifecycle === "stopped",
  };
}

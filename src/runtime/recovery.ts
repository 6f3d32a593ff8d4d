import type { CompiledAutonomousPolicy } from "../compiler/index.js";
import { type EventFrame, toolActionTriple } from "../history/index.js";
import { transition } from "../port/index.js";
import { toolActionAt } from "../records/index.js";
import type {
  ControlPlaneStore,
  Fence,
  InvocationCommit,
  InvocationRecord,
  SchedulerRecord,
  ToolActionRecord,
} from "../store/index.js";
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
  /** The compiled policy: its failure policy and attempt bound decide the scheduler after a consumed attempt. */
  readonly policyOf: (policyAddress: string) => CompiledAutonomousPolicy | undefined;
  /** The history frame (actor provenance, temporal contracts) of the policy's events. */
  readonly frameOf: (policyAddress: string) => EventFrame;
}

/** The operator's line after recovery: how many attempts the interrupted run consumed, and which. */
export function consumedLine(recovered: readonly RecoveredInvocation[]): string {
  const n = recovered.length;
  const stopped = recovered.filter((r) => r.stopped).length;
  return `recovered an interrupted run: ${n} attempt${n === 1 ? " was" : "s were"} consumed by the crash or lost commit (never retried)${stopped > 0 ? `, ${stopped} stopped its scheduler` : ""}: ${recovered.map((r) => r.invocationId).join(", ")}`;
}

/** Settles the tool actions of one interrupted invocation by the close rules. */
export function settleInterrupted(actions: readonly ToolActionRecord[], at: string): ToolActionRecord[] {
  return [...actions]
    .sort((a, b) => a.admissionOrdinal - b.admissionOrdinal)
    .map((action) => {
      const result = transition(action, { type: "close" });
      return result.ok ? toolActionAt(action, result.state, at) : action;
    });
}

/**
 * Settles every interrupted invocation of the given participants: undispatched actions withheld,
 * dispatched-without-outcome indeterminate (scheduler stopped), recorded outcomes kept, the outer
 * attempt consumed; each participant's settlements and triples commit in one recovery transaction.
 * Running it twice changes nothing.
 */
export async function recoverInterruptedInvocations(
  store: ControlPlaneStore,
  options: RecoveryOptions,
): Promise<RecoveredInvocation[]> {
  const open = (await store.listOpenInvocations()).filter((i) =>
    options.participants.has(i.participantAddress),
  );
  open.sort((a, b) => a.participantAddress.localeCompare(b.participantAddress) || a.ordinal - b.ordinal);
  const byParticipant = new Map<string, InvocationRecord[]>();
  for (const invocation of open) {
    const list = byParticipant.get(invocation.participantAddress);
    if (list) list.push(invocation);
    else byParticipant.set(invocation.participantAddress, [invocation]);
  }
  const recovered: RecoveredInvocation[] = [];
  for (const [participant, invocations] of byParticipant) {
    recovered.push(...(await recoverParticipant(store, participant, invocations, options)));
  }
  return recovered;
}

async function recoverParticipant(
  store: ControlPlaneStore,
  participantAddress: string,
  invocations: readonly InvocationRecord[],
  options: RecoveryOptions,
): Promise<RecoveredInvocation[]> {
  const at = options.now();
  const schedulers = new Map<string, SchedulerRecord>();
  const commits: InvocationCommit[] = [];
  const recovered: RecoveredInvocation[] = [];
  for (const invocation of invocations) {
    const settled = settleInterrupted(await store.listToolActions({ invocationId: invocation.id }), at);
    const scheduler =
      schedulers.get(invocation.policyAddress) ??
      (await store.getScheduler(participantAddress, invocation.policyAddress));
    if (!scheduler) throw new Error(`no scheduler record for ${participantAddress}`);
    const next = schedulerAfterClose(
      scheduler,
      {
        indeterminate: settled.some((a) => a.settlement === "indeterminate"),
        outerFailed: true,
        // A v2 continuation carries failure_policy itself.
        stopsOnFailure:
          options.policyOf(invocation.policyAddress)?.failurePolicy === "stop" &&
          options.policyOf(invocation.policyAddress)?.activity === undefined,
        maxActionAttempts: options.policyOf(invocation.policyAddress)?.maxActionAttempts ?? Infinity,
      },
      at,
    );
    schedulers.set(invocation.policyAddress, next);
    commits.push({
      // The process died mid-invocation; the invocation ends when recovery consumes it.
      invocation: { ...invocation, state: "failed", endedAt: at, updatedAt: at },
      toolActions: settled,
      events: settled.flatMap((a) =>
        toolActionTriple(options.frameOf(invocation.policyAddress), a, invocation),
      ),
      scheduler: next,
    });
    recovered.push({
      invocationId: invocation.id,
      participantAddress,
      settlements: Object.fromEntries(settled.map((a) => [a.id, a.settlement ?? ""])),
      stopped: next.lifecycle === "stopped",
    });
  }
  const fence = options.fenceFor(participantAddress);
  await store.commitInvocations(commits, ...(fence ? [fence] : []));
  return recovered;
}

import type { CompiledAutonomousPolicy } from "../../compiler/index.js";
import { type EventFrame, toolActionTriple } from "../../history/index.js";
import { transition } from "../../port/index.js";
import {
  ApprovalExpiry,
  ApprovalState,
  approvalWithheldReason,
  type ChainAnchor,
  ToolActionPhase,
  UnknownReason,
  unansweredClaimFields,
} from "../../records/index.js";
import type {
  ControlPlaneStore,
  Fence,
  InvocationCommit,
  InvocationRecord,
  SchedulerRecord,
  ToolActionRecord,
} from "../../store/index.js";
import { scheduleKey, schedulerAfterClose } from "../schedule/index.js";

/** How recovery settled one interrupted invocation. */
export interface RecoveredInvocation {
  readonly invocationId: string;
  readonly participantAddress: string;
  readonly settlements: Readonly<Record<string, string>>;
  /** This invocation's recovery stopped its scheduler (it was not stopped before), so each stop counts once. */
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
  /** The scenario and manifest a participant's chain starts from (docs/evidence-format.md). */
  readonly anchor?: ChainAnchor;
  /**
   * Claims this process knows were never run: their callers heard a refusal (the claim's answer was
   * lost, and its close could not read it back). Settled as the port settles such a claim.
   */
  readonly unanswered?: ReadonlySet<string>;
}

/** How many consumed attempts the recovery line names before it only counts the rest. */
const NAMED_ATTEMPTS = 5;

/**
 * The operator's line after recovery: how many attempts the interrupted run consumed, and which. Past
 * a few, it names the first ones and says how to list all (ten thousand ids would be a megabyte).
 */
export function consumedLine(recovered: readonly RecoveredInvocation[]): string {
  const n = recovered.length;
  const stopped = recovered.filter((r) => r.stopped).length;
  const named = recovered.slice(0, NAMED_ATTEMPTS).map((r) => r.invocationId);
  const more =
    n > NAMED_ATTEMPTS
      ? ` and ${n - NAMED_ATTEMPTS} more (list them: raes operations --kind scheduler_invocation --state failed; their dispatched tool actions: raes operations --state indeterminate)`
      : "";
  return `recovered an interrupted run: ${n} attempt${n === 1 ? " was" : "s were"} consumed by the crash or lost commit (never retried)${stopped > 0 ? `, ${stopped} stopped ${stopped === 1 ? "its scheduler" : "their schedulers"}` : ""}: ${named.join(", ")}${more}`;
}

/**
 * Settles the tool actions of one interrupted invocation by the close rules. Nobody saw them settle, so
 * `settledAt` stays absent and the times known before the process ended stay as they were; the
 * recovery time is `recoveredAt`, and an indeterminate action says why (`runtime_interrupted`). A
 * claim in `unanswered` never ran (its caller heard a refusal): `withheld`, or `failed` if it was
 * recorded dispatched, each with `claim_unanswered`, as the port settles one it reads back.
 */
export function settleInterrupted(
  actions: readonly ToolActionRecord[],
  at: string,
  unanswered: ReadonlySet<string> = new Set(),
): ToolActionRecord[] {
  return [...actions]
    .sort((a, b) => a.admissionOrdinal - b.admissionOrdinal)
    .map((action) => {
      const notRun = unanswered.has(action.id);
      const event =
        notRun && action.phase === ToolActionPhase.dispatched
          ? ({ type: "complete", status: "failed" } as const)
          : ({ type: "close" } as const);
      const result = transition(action, event);
      if (!result.ok || result.state.phase === action.phase) return action;
      const settlement = result.state.settlement;
      return {
        ...action,
        phase: ToolActionPhase.settled,
        ...(settlement === undefined ? {} : { settlement }),
        ...(settlement === "indeterminate" ? { unknownReason: UnknownReason.runtime_interrupted } : {}),
        ...(notRun ? unansweredClaimFields(settlement) : withheldFor(action, settlement)),
        recoveredAt: at,
        updatedAt: at,
      };
    });
}

/** A held call's withheld reason (docs/guide/approvals.md): denied, or expired by the restart. */
function withheldFor(action: ToolActionRecord, settlement: string | undefined): { withheldReason?: string } {
  if (settlement !== "withheld" || action.withheldReason !== undefined) return {};
  const why = approvalWithheldReason(action.approval);
  return why === undefined ? {} : { withheldReason: why };
}

/**
 * A restart cancels a call held for approval: each pending approval is expired (`expiredBy:
 * "restart"`) by the store's compare-and-set, so an operator deciding at this moment either wins
 * (their decision is kept, and read back) or is refused; either way the call is withheld, never run.
 */
async function expireHeld(
  store: ControlPlaneStore,
  actions: readonly ToolActionRecord[],
  at: string,
): Promise<ToolActionRecord[]> {
  const out: ToolActionRecord[] = [];
  for (const action of actions) {
    const pending = action.approval;
    if (action.phase !== ToolActionPhase.admitted || pending?.state !== ApprovalState.pending) {
      out.push(action);
      continue;
    }
    const expired = {
      ...pending,
      state: ApprovalState.expired,
      decidedAt: at,
      expiredBy: ApprovalExpiry.restart,
    };
    if (await store.recordApproval(action.id, expired, ApprovalState.pending)) {
      out.push({ ...action, approval: expired });
      continue;
    }
    const stored = await store.getToolAction(action.id);
    out.push(stored?.approval ? { ...action, approval: stored.approval } : { ...action, approval: expired });
  }
  return out;
}

/**
 * Settles every interrupted invocation of the given participants: undispatched actions withheld,
 * dispatched-without-outcome indeterminate (scheduler stopped), recorded outcomes kept, the outer
 * attempt consumed; each participant's settlements and triples commit in one recovery transaction.
 * The invocations, their tool actions and the schedulers are read in three queries whatever their
 * number, so recovery costs the same per invocation at ten or ten thousand. Running it twice changes nothing.
 */
export async function recoverInterruptedInvocations(
  store: ControlPlaneStore,
  options: RecoveryOptions,
): Promise<RecoveredInvocation[]> {
  const open = (await store.listOpenInvocations()).filter((i) =>
    options.participants.has(i.participantAddress),
  );
  if (open.length === 0) return [];
  open.sort((a, b) => a.participantAddress.localeCompare(b.participantAddress) || a.ordinal - b.ordinal);
  const byParticipant = new Map<string, InvocationRecord[]>();
  for (const invocation of open) {
    const list = byParticipant.get(invocation.participantAddress);
    if (list) list.push(invocation);
    else byParticipant.set(invocation.participantAddress, [invocation]);
  }
  // One participant's recovery asks for its own actions; several read every open invocation's at once.
  const only = byParticipant.size === 1 ? open[0]?.participantAddress : undefined;
  const actions = new Map<string, ToolActionRecord[]>();
  for (const action of await store.listOpenToolActions(...(only === undefined ? [] : [only]))) {
    const list = actions.get(action.invocationId);
    if (list) list.push(action);
    else actions.set(action.invocationId, [action]);
  }
  const schedulers = new Map<string, SchedulerRecord>();
  for (const scheduler of await store.listSchedulers()) {
    schedulers.set(scheduleKey(scheduler.participantAddress, scheduler.policyAddress), scheduler);
  }
  const recovered: RecoveredInvocation[] = [];
  for (const [participant, invocations] of byParticipant) {
    const read = { actions, schedulers };
    // One at a time: spread into push, a participant's hundreds of thousands overflow the stack.
    for (const one of await recoverParticipant(store, participant, invocations, read, options))
      recovered.push(one);
  }
  return recovered;
}

/** What recovery read up front: tool actions by invocation id, schedulers by `scheduleKey`. */
interface RecoveryReads {
  readonly actions: ReadonlyMap<string, readonly ToolActionRecord[]>;
  readonly schedulers: Map<string, SchedulerRecord>;
}

async function recoverParticipant(
  store: ControlPlaneStore,
  participantAddress: string,
  invocations: readonly InvocationRecord[],
  read: RecoveryReads,
  options: RecoveryOptions,
): Promise<RecoveredInvocation[]> {
  const at = options.now();
  const { schedulers } = read;
  // Approvals still pending expire first, each by its own write, before the closes' transaction.
  const expired = new Map<string, ToolActionRecord[]>();
  for (const invocation of invocations) {
    const read0 = read.actions.get(invocation.id) ?? [];
    if (read0.some((a) => a.approval?.state === ApprovalState.pending))
      expired.set(invocation.id, await expireHeld(store, read0, at));
  }
  const recovered: RecoveredInvocation[] = [];
  // One frame per policy, not per invocation: its strings are the same for all of them.
  const frames = new Map<string, EventFrame>();
  // Built as the store takes them, so the store can write the first while the rest are built.
  function* closes(): Generator<InvocationCommit> {
    for (const invocation of invocations) {
      const read0 = read.actions.get(invocation.id) ?? [];
      const settled = settleInterrupted(expired.get(invocation.id) ?? read0, at, options.unanswered);
      const key = scheduleKey(participantAddress, invocation.policyAddress);
      const scheduler = schedulers.get(key);
      if (!scheduler) throw new Error(`no scheduler record for ${participantAddress}`);
      const policy = options.policyOf(invocation.policyAddress);
      const next = schedulerAfterClose(
        scheduler,
        {
          indeterminate: settled.some((a) => a.settlement === "indeterminate"),
          outerFailed: true,
          // A v2 continuation carries failure_policy itself.
          stopsOnFailure: policy?.failurePolicy === "stop" && policy.activity === undefined,
          maxActionAttempts: policy?.maxActionAttempts ?? Infinity,
        },
        at,
      );
      schedulers.set(key, next);
      let frame = frames.get(invocation.policyAddress);
      if (frame === undefined) {
        frame = options.frameOf(invocation.policyAddress);
        frames.set(invocation.policyAddress, frame);
      }
      recovered.push({
        invocationId: invocation.id,
        participantAddress,
        settlements: Object.fromEntries(settled.map((a) => [a.id, a.settlement ?? ""])),
        stopped: next.lifecycle === "stopped" && scheduler.lifecycle !== "stopped",
      });
      yield {
        // The process died mid-invocation: its end is unknown, so endedAt stays absent and recovery's
        // time is recoveredAt. Like RAES for an attempt without a valid result, no outer triple.
        invocation: { ...invocation, state: "failed", recoveredAt: at, updatedAt: at },
        // Only what recovery changed is written (a settlement, or an approval it expired even when the
        // phase stays): an action whose outcome was recorded is stored as it stays, the record read.
        toolActions: settled.filter((a) => !read0.includes(a)),
        events: settled.flatMap((a) => toolActionTriple(frame, a, invocation)),
        scheduler: next,
        ...(options.anchor ? { anchor: options.anchor } : {}),
      };
    }
  }
  const fence = options.fenceFor(participantAddress);
  await store.commitInvocations(closes(), ...(fence ? [fence] : []));
  return recovered;
}

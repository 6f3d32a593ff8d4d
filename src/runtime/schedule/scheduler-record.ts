import {
  decisionNote,
  operatorIdentity,
  resumeDecision,
  unresolvedIndeterminateActions,
} from "../../operations/index.js";
import type {
  ActivityContinuation,
  ClockRecord,
  ControlPlaneStore,
  SchedulerRecord,
} from "../../store/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import type { ScheduleSpec } from "./plan.js";

/** A v2 schedule's continuation at the start of a segment (drawn from `tick`), to spread into its record. */
export type SegmentStart = (
  spec: ScheduleSpec,
  segment: number,
  tick: number,
) => { readonly activity?: ActivityContinuation };

/** What a scheduler record carries about its run: the attempt bound, the policy digest and, for v2, the control fingerprint. */
export function scheduleIdentity(
  spec: ScheduleSpec,
): Pick<SchedulerRecord, "maxActionAttempts" | "streamFingerprint" | "policyDigest"> {
  const fingerprint = spec.v2?.stream.fingerprint;
  return {
    maxActionAttempts: spec.policy.maxActionAttempts,
    policyDigest: spec.policyDigest,
    ...(fingerprint === undefined ? {} : { streamFingerprint: fingerprint }),
  };
}

/** A schedule's first record: running in the clock's segment from `tick`, nothing consumed yet. */
export function firstRecord(
  spec: ScheduleSpec,
  clock: ClockRecord | undefined,
  tick: number,
  o: { readonly now: () => string; readonly segmentStart?: SegmentStart },
): SchedulerRecord {
  return {
    ...o.segmentStart?.(spec, clock?.segment ?? 0, clock?.tick ?? 0),
    ...scheduleIdentity(spec),
    participantAddress: spec.participantAddress,
    policyAddress: spec.policy.address,
    lifecycle: "running",
    nextOrdinal: 0,
    attempts: 0,
    cursor: 0,
    segment: clock?.segment ?? 0,
    tick,
    updatedAt: o.now(),
  };
}

/**
 * The stored record brought up to date, or undefined when it is: a row from before schema step 7
 * learns its bound and control fingerprint, and a v1 schedule left running with its attempts used up
 * (resumed by an older `raes resume` that could not know the bound) completes, as in RAES.
 */
export function upgradedRecord(
  record: SchedulerRecord,
  spec: ScheduleSpec,
  at: string,
): SchedulerRecord | undefined {
  const identity = scheduleIdentity(spec);
  const fingerprint = identity.streamFingerprint;
  const exhausted =
    record.lifecycle === "running" &&
    record.activity === undefined &&
    record.attempts >= spec.policy.maxActionAttempts;
  if (
    !exhausted &&
    record.maxActionAttempts === identity.maxActionAttempts &&
    record.policyDigest === identity.policyDigest &&
    (fingerprint === undefined || record.streamFingerprint === fingerprint)
  )
    return undefined;
  return { ...record, ...identity, ...(exhausted ? { lifecycle: "completed" as const } : {}), updatedAt: at };
}

/**
 * Refuses, before anything is written, a v2 schedule the store started under another stochastic
 * control (namespace or seed): its stored fingerprint differs from the supplied control's.
 */
export async function assertSameControls(
  store: ControlPlaneStore,
  specs: readonly ScheduleSpec[],
  participants: ReadonlySet<string>,
): Promise<void> {
  for (const spec of specs) {
    const fingerprint = spec.v2?.stream.fingerprint;
    if (!participants.has(spec.participantAddress) || fingerprint === undefined) continue;
    const stored = await store.getScheduler(spec.participantAddress, spec.policy.address);
    if (stored?.streamFingerprint === undefined || stored.streamFingerprint === fingerprint) continue;
    throw new RuntimeError(
      RuntimeErrorCode.activity_state_conflict,
      `${spec.participantAddress} was started under another stochastic control (namespace or seed) than the one supplied for ${spec.v2?.stream.controlId}; reopen it with the control it started with, or use a new store`,
    );
  }
}

/**
 * The schedules the store started under another policy: their stored digest differs from the policy's.
 * Unless `allowChange`, the first is refused (`runtime.participant-autonomous-state-conflict`, RAES's code),
 * naming the policy, before anything is written; allowed, they are returned so the run starts a new segment.
 */
export async function changedPolicies(
  store: ControlPlaneStore,
  specs: readonly ScheduleSpec[],
  participants: ReadonlySet<string>,
  allowChange: boolean,
): Promise<ScheduleSpec[]> {
  const changed: ScheduleSpec[] = [];
  for (const spec of specs) {
    if (!participants.has(spec.participantAddress)) continue;
    const stored = await store.getScheduler(spec.participantAddress, spec.policy.address);
    if (stored?.policyDigest === undefined || stored.policyDigest === spec.policyDigest) continue;
    if (!allowChange) {
      throw new RuntimeError(
        RuntimeErrorCode.activity_state_conflict,
        `the policy ${spec.policy.address} differs from the one ${spec.participantAddress} runs under in this store (stored ${stored.policyDigest}, now ${spec.policyDigest}); reopen with the policy it started with, allow the change, which starts a new segment (the --allow-policy-change option of raes run; allowPolicyChange of RuntimeManager.open), or use a new store`,
      );
    }
    changed.push(spec);
  }
  return changed;
}

/**
 * The records a resume writes: each stopped one running again (or completed), none for those not
 * stopped. Refused when there are none (`records` are the participant's loaded ones), while an
 * indeterminate tool action is unresolved, and (`state_conflict`) when a v2 continuation ended failed.
 */
export async function resumedRecords(
  book: {
    readonly store: ControlPlaneStore;
    readonly specs: readonly ScheduleSpec[];
    readonly now: () => string;
  },
  records: readonly SchedulerRecord[],
  participantAddress: string,
): Promise<SchedulerRecord[]> {
  const { store, specs } = book;
  const at = book.now();
  if (records.length === 0) {
    throw new RuntimeError(
      RuntimeErrorCode.unknown_participant,
      `this manager does not schedule ${participantAddress}`,
    );
  }
  const open = await unresolvedIndeterminateActions(store, participantAddress);
  if (open.length > 0) {
    throw new RuntimeError(
      RuntimeErrorCode.unresolved_indeterminate,
      `${participantAddress} has unresolved indeterminate tool actions; resolve them first`,
      open.map((id) => `raes resolve ${id} --effect confirmed|absent`),
    );
  }
  const decisions = records.map((record) => {
    const spec = specs.find((s) => s.policy.address === record.policyAddress);
    return resumeDecision(record, at, spec?.policy.maxActionAttempts);
  });
  const refused = decisions.flatMap((d) => (d.kind === "not_resumable" ? [d.reason] : []));
  if (refused.length > 0)
    throw new RuntimeError(
      RuntimeErrorCode.scheduler_not_resumable,
      `${participantAddress} cannot be resumed`,
      refused,
    );
  return decisions.flatMap((d) => (d.kind === "resumed" ? [d.record] : []));
}

/** What an invocation close (or its recovery) learned that can stop the scheduler. */
export interface CloseFacts {
  readonly indeterminate: boolean;
  readonly outerFailed: boolean;
  readonly stopsOnFailure: boolean;
  /** A v2 harness threw or returned an invalid result (stops the scheduler whatever the failure_policy). */
  readonly harnessError?: boolean;
  /** The policy's max_action_attempts. */
  readonly maxActionAttempts: number;
}

/**
 * The scheduler after an invocation closes: an indeterminate tool action always stops it, a failure
 * stops it under failure_policy stop, and otherwise it is `completed` once its attempt bound is used up (as in RAES).
 * A v2 record follows its continuation: `failed` (failure_policy stop) stops it, `completed` completes
 * it; a v2 harness error stops it (`harness_error`) whatever the failure_policy.
 */
export function schedulerAfterClose(
  scheduler: SchedulerRecord,
  facts: CloseFacts,
  at: string,
): SchedulerRecord {
  if (facts.indeterminate) {
    return { ...scheduler, lifecycle: "stopped", stopReason: "tool_action_indeterminate", updatedAt: at };
  }
  if (facts.harnessError && scheduler.lifecycle === "running") {
    return { ...scheduler, lifecycle: "stopped", stopReason: "harness_error", updatedAt: at };
  }
  const v2State = scheduler.activity?.lifecycle_state;
  if (
    scheduler.lifecycle === "running" &&
    ((facts.outerFailed && facts.stopsOnFailure) || v2State === "failed")
  ) {
    return { ...scheduler, lifecycle: "stopped", stopReason: "failure_policy", updatedAt: at };
  }
  if (scheduler.lifecycle === "running" && v2State === "completed") {
    return { ...scheduler, lifecycle: "completed", updatedAt: at };
  }
  if (scheduler.lifecycle === "running" && scheduler.attempts >= facts.maxActionAttempts) {
    return { ...scheduler, lifecycle: "completed", updatedAt: at };
  }
  return { ...scheduler, updatedAt: at };
}

/**
 * Who allows a policy change and why (`true`: `RAES_OPERATOR`, else `USER@HOST`, no note), checked
 * before anything is written: the `policy_change` decisions name them. `OperatorError` when invalid.
 */
export function policyChangeBy(allowance: true | { readonly operator?: string; readonly note?: string }): {
  readonly operator: string;
  readonly note: string;
} {
  const given = allowance === true ? {} : allowance;
  return { operator: operatorIdentity(given.operator), note: decisionNote(given.note) };
}

import type { RuntimeModel } from "../compiler/index.js";
import {
  InvocationToolActionPortCore,
  type ParticipantToolActionRefusal,
  type ToolActionLimits,
  type ToolActionObserver,
} from "../port/index.js";
import type {
  ActivityContinuation,
  ControlPlaneStore,
  Fence,
  InvocationRecord,
  SchedulerRecord,
  ToolActionRecord,
} from "../store/index.js";
import {
  type ActivityPlan,
  attemptOutcome,
  CONSUMED_ATTEMPT,
  type PlannedAttempt,
  settleAttempt,
} from "./activity-engine.js";
import { activityProvenance, withProvenance } from "./activity-provenance.js";
import { type LateOutcome, runWithinDeadline } from "./deadline.js";
import { RuntimeError, RuntimeErrorCode } from "./errors.js";
import { closeEvents, eventFrameFor } from "./event-frame.js";
import { ledgerFailureLine } from "./ledger-log.js";
import { schedulerAfterClose } from "./lifecycle.js";
import { isSuccessfulStatus, timeoutResult, validateOuterResult } from "./outer-result.js";
import type { ScheduleSpec } from "./plan.js";
import { episodeIdFor, observationPointFor, outerActionInstanceId } from "./schedule.js";
import type { RuntimeTimers } from "./timers.js";
import { InvocationTrace } from "./tracing.js";
import type { ParticipantActionRequest, ParticipantRuntime, ParticipantSnapshot } from "./types.js";

/** Everything one invocation needs from the manager; nothing in it reaches back into the manager. */
export interface InvocationContext {
  readonly store: ControlPlaneStore;
  readonly runtime: ParticipantRuntime;
  readonly model: RuntimeModel;
  readonly limits: ToolActionLimits | undefined;
  readonly now: () => string;
  readonly fence: Fence | undefined;
  readonly outcomeEvidence: (boundaryAddress: string) => ReadonlySet<string> | undefined;
  readonly failureClasses: (actionContractAddress: string) => ReadonlySet<string> | undefined;
  readonly onRefusal?: (refusal: ParticipantToolActionRefusal) => void;
  /** Where operator notes go (a failed ledger write's cause). */
  readonly log: (line: string) => void;
  readonly timers: RuntimeTimers;
  /** The covering offer's timeout_seconds in ms for the outer request; undefined means unbounded. */
  readonly outerTimeoutMs: (request: ParticipantActionRequest) => number | undefined;
  /** Told once when a timed-out invocation's harness ends after all; its result was discarded. */
  readonly onLate?: (invocationId: string, how: LateOutcome) => void;
}

/** Where the shared clock stands for this invocation. */
export interface InvocationClock {
  readonly clockAddress: string;
  readonly segment: number;
  readonly tick: number;
  readonly generation: number;
}

/** A v2 attempt the scheduler planned: the continuation it was planned from and the plan. */
export interface ActivityAttempt {
  readonly plan: ActivityPlan;
  readonly state: ActivityContinuation;
  readonly attempt: PlannedAttempt;
}

/** What one closed invocation produced. */
export interface InvocationSummary {
  readonly invocationId: string;
  readonly participantAddress: string;
  readonly state: "succeeded" | "failed";
  /** The outer result's status; undefined when the invocation threw or returned an invalid result. */
  readonly outerStatus: string | undefined;
  readonly toolActions: readonly ToolActionRecord[];
  readonly scheduler: SchedulerRecord;
  readonly error?: unknown;
  /** True when the covering offer's timeout expired first: the attempt failed with class `timeout`. */
  readonly timedOut?: boolean;
}

function fenceArgs(fence: Fence | undefined): [] | [Fence] {
  return fence ? [fence] : [];
}

/** Runs one due outer invocation end to end: open, attach, dispatch, close, one commit. */
export async function runInvocation(
  ctx: InvocationContext,
  spec: ScheduleSpec,
  scheduler: SchedulerRecord,
  clock: InvocationClock,
  activity?: ActivityAttempt,
): Promise<InvocationSummary> {
  const { policy, participantAddress } = spec;
  const actionContractAddress =
    activity?.attempt.candidate.actionContractAddress ??
    policy.actionOrder[scheduler.cursor % policy.actionOrder.length] ??
    "";
  const binding = policy.executionBindings.find((b) => b.actionContractAddress === actionContractAddress);
  const episodeId = episodeIdFor(participantAddress, clock.segment);
  const observationPoint = observationPointFor(clock.clockAddress, clock.segment, clock.tick);
  const id =
    activity?.attempt.attemptId ??
    outerActionInstanceId(policy.address, participantAddress, scheduler.nextOrdinal);
  const openedAt = ctx.now();
  const invocation: InvocationRecord = {
    id,
    policyAddress: policy.address,
    participantAddress,
    actionContractAddress,
    observationBoundaryAddress: policy.observationBoundaryAddress,
    episodeId,
    segment: clock.segment,
    tick: clock.tick,
    ordinal: scheduler.nextOrdinal,
    executionScopeRef: policy.address,
    executionGeneration: clock.generation,
    observationPoint,
    participantImplementationRef: policy.participantImplementationRef,
    state: "running",
    startedAt: openedAt,
    createdAt: openedAt,
    updatedAt: openedAt,
  };
  const opened: SchedulerRecord = {
    ...scheduler,
    nextOrdinal: scheduler.nextOrdinal + 1,
    attempts: scheduler.attempts + 1,
    cursor: scheduler.cursor + 1,
    segment: clock.segment,
    tick: clock.tick,
    // Committed with the open: if the process dies now, the attempt is consumed and the run goes on from here.
    ...(activity
      ? { activity: settleAttempt(activity.plan, activity.state, activity.attempt, CONSUMED_ATTEMPT) }
      : {}),
    updatedAt: openedAt,
  };
  await ctx.store.openInvocation(invocation, opened, ...fenceArgs(ctx.fence));
  const tracing = new InvocationTrace(invocation);

  const request: ParticipantActionRequest = {
    actionInstanceId: id,
    participantAddress,
    actionContractAddress,
    observationBoundaryAddress: policy.observationBoundaryAddress,
    targetAddresses: binding?.targetAddresses ?? [],
    executionScopeRef: policy.address,
    executionGeneration: clock.generation,
    observationPoint,
    episodeId,
    participantImplementationRef: policy.participantImplementationRef,
    ordinal: invocation.ordinal,
  };
  const snapshot: ParticipantSnapshot = {
    clockAddress: clock.clockAddress,
    segment: clock.segment,
    tick: clock.tick,
    episodeId,
    executionGeneration: clock.generation,
    attempts: opened.attempts,
  };
  const core =
    spec.toolActionsEnabled && ctx.limits
      ? createPort(ctx, invocation, ctx.limits, spec, tracing)
      : undefined;

  const timeoutMs = ctx.outerTimeoutMs(request);
  const ended = await runWithinDeadline(
    {
      timeoutMs,
      timers: ctx.timers,
      // The port closes before the signal fires, so an abort handler already sees invocation_closed.
      onExpire: () => core?.close(),
      onLate: (how) => ctx.onLate?.(id, how),
    },
    async (signal) => {
      if (core) await ctx.runtime.attachInvocationToolActions?.(core.port);
      core?.open();
      return ctx.runtime.admitAction(request, snapshot, {
        signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...tracing.control(),
      });
    },
  );
  core?.close();
  const threw = ended.kind === "threw";
  const timedOut = ended.kind === "timed_out";
  const toolActions = core ? await core.settleForClose() : [];
  const check =
    ended.kind === "returned"
      ? validateOuterResult(ended.value, request, ctx.outcomeEvidence(policy.observationBoundaryAddress))
      : undefined;
  const outer = check?.ok ? check.result : timedOut ? timeoutResult(request, snapshot) : undefined;
  const closedAt = ctx.now();
  const state = outer && isSuccessfulStatus(outer.status) ? "succeeded" : "failed";
  // A harness that threw or answered an invalid result consumed its attempt as a crash does.
  const harnessError = activity !== undefined && outer === undefined;
  const settled = activity
    ? {
        ...opened,
        activity: settleAttempt(activity.plan, activity.state, activity.attempt, attemptOutcome(outer)),
      }
    : opened;
  const next = schedulerAfterClose(
    settled,
    {
      indeterminate: toolActions.some((a) => a.settlement === "indeterminate"),
      // RAES counts only `succeeded` as success: partial_success stops a failure_policy `stop` scheduler.
      outerFailed: outer?.status !== "succeeded",
      // Under v2 the continuation carries failure_policy itself (lifecycle `failed`).
      stopsOnFailure: !activity && policy.failurePolicy === "stop",
      harnessError,
      maxActionAttempts: policy.maxActionAttempts,
    },
    closedAt,
  );
  const provenance =
    activity &&
    activityProvenance(activity.plan, policy.profile, activity.attempt, outer?.status ?? "unknown");
  const close = { endedAt: closedAt, updatedAt: closedAt, ...tracing.refusals() };
  const closed: InvocationRecord = { ...invocation, state, ...close };
  // The invocation span ends whether or not the close commits, so no span is left open.
  let committed = false;
  try {
    await ctx.store.commitInvocation(
      {
        invocation: closed,
        toolActions,
        events: withProvenance(
          closeEvents(eventFrameFor(ctx.model, policy, ctx.runtime), closed, toolActions, outer),
          provenance,
        ),
        scheduler: next,
      },
      ...fenceArgs(ctx.fence),
    );
    committed = true;
  } finally {
    tracing.end(committed ? state : "commit_failed", outer?.status);
  }
  return {
    invocationId: id,
    participantAddress,
    state,
    outerStatus: outer?.status,
    toolActions,
    scheduler: next,
    ...(threw
      ? { error: ended.error }
      : check?.ok === false
        ? { error: invalidResultError(check.problem) }
        : {}),
    ...(timedOut ? { timedOut } : {}),
  };
}

function invalidResultError(problem: string): RuntimeError {
  return new RuntimeError(
    RuntimeErrorCode.outer_result_invalid,
    `admitAction returned an invalid result: ${problem}`,
  );
}

function createPort(
  ctx: InvocationContext,
  invocation: InvocationRecord,
  limits: ToolActionLimits,
  spec: ScheduleSpec,
  observer: ToolActionObserver,
): InvocationToolActionPortCore {
  const fence = fenceArgs(ctx.fence);
  return new InvocationToolActionPortCore({
    identity: {
      invocationActionInstanceId: invocation.id,
      participantAddress: invocation.participantAddress,
      episodeId: invocation.episodeId,
      participantImplementationRef: invocation.participantImplementationRef,
      executionScopeRef: invocation.executionScopeRef,
      executionGeneration: invocation.executionGeneration,
      observationPoint: invocation.observationPoint,
    },
    rules: spec.rules,
    limits,
    ledger: {
      insert: (record) => ctx.store.insertToolAction(record, ...fence),
      update: (record, expected) => ctx.store.updateToolAction(record, expected, ...fence),
    },
    outcomeEvidence: ctx.outcomeEvidence,
    failureClasses: ctx.failureClasses,
    now: ctx.now,
    observer,
    onLedgerFailure: (failure) => ctx.log(ledgerFailureLine(failure)),
    ...(ctx.onRefusal ? { onRefusal: ctx.onRefusal } : {}),
  });
}

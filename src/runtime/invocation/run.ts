import type { CompiledAutonomousPolicy, RuntimeModel } from "../../compiler/index.js";
import {
  actorProvenance,
  type EventFrame,
  type HistoryEventDraft,
  type OuterResult,
  outerTriple,
  toolActionTriple,
} from "../../history/index.js";
import type { ExecutionOfferIndex } from "../../manifest/index.js";
import {
  InvocationToolActionPortCore,
  type ParticipantToolActionRefusal,
  type SettledAtClose,
  type ToolActionLimits,
  type ToolActionObserver,
  UnheardClaimUnreadableError,
} from "../../port/index.js";
import type { ChainAnchor } from "../../records/index.js";
import {
  type ActivityContinuation,
  type ControlPlaneStore,
  type Fence,
  type InvocationRecord,
  type ResourceLedger,
  type SchedulerRecord,
  type ServiceAdmission,
  StoreSchemaDamagedError,
  StoreUnavailableError,
  type ToolActionRecord,
} from "../../store/index.js";
import { type InvocationClock, type RuntimeTimers, systemTimers } from "../clock/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import {
  episodeIdFor,
  observationPointFor,
  outerActionInstanceId,
  type ScheduleSpec,
  schedulerAfterClose,
} from "../schedule/index.js";
import type { ParticipantActionRequest, ParticipantRuntime, ParticipantSnapshot } from "../types.js";
import {
  attemptOutcome,
  CONSUMED_ATTEMPT,
  type PlannedAttempt,
  settleAttempt,
  type V2Plan,
  v2Provenance,
  withProvenance,
} from "../v2/index.js";
import {
  checkMeasurements,
  commitHeld,
  MeasurementCode,
  measurementRequirements,
  releaseHeld,
  type V3Plan,
} from "../v3/index.js";
import { type LateOutcome, outerTimeouts, runWithinDeadline } from "./deadline.js";
import { ledgerFailureLine } from "./ledger-log.js";
import { isSuccessfulStatus, timeoutResult, validateOuterResult } from "./outer-result.js";
import { InvocationTrace } from "./tracing.js";

/** Everything one invocation needs from the manager; nothing in it reaches back into the manager. */
export interface InvocationContext {
  readonly store: ControlPlaneStore;
  readonly runtime: ParticipantRuntime;
  readonly model: RuntimeModel;
  readonly limits: ToolActionLimits | undefined;
  readonly now: () => string;
  readonly fence: Fence | undefined;
  /** The execution service the open is admitted under, checked in the open's transaction (`ServiceAdmission`). */
  readonly admission?: ServiceAdmission;
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
  /** The scenario and manifest a participant's chain starts from (docs/evidence-format.md). */
  readonly anchor?: ChainAnchor;
  /** RAES's health of a policy's execution service (`degraded` once pacing was lost), for the invocation span. */
  readonly serviceHealth?: (policyAddress: string) => string;
}

/** What the manager hands every invocation. */
export interface ContextInput {
  readonly model: RuntimeModel;
  readonly runtime: ParticipantRuntime;
  readonly store: ControlPlaneStore;
  readonly limits: ToolActionLimits | undefined;
  readonly now: () => string;
  readonly onRefusal?: (refusal: ParticipantToolActionRefusal) => void;
  readonly log: (line: string) => void;
  /** The manifest's offers: the covering one's timeout_seconds bounds each outer invocation. */
  readonly offers: ExecutionOfferIndex;
  readonly timers?: RuntimeTimers;
  readonly onLate?: (invocationId: string, how: LateOutcome) => void;
  readonly anchor?: ChainAnchor;
  readonly serviceHealth?: (policyAddress: string) => string;
}

/** The invocation context: the model's evidence and failure-class lookups, the store and the clock. */
export function buildContext(input: ContextInput): InvocationContext {
  const evidence = new Map<string, ReadonlySet<string>>();
  for (const b of Object.values(input.model.observationBoundaries))
    evidence.set(b.address, new Set(b.outcomeEvidenceRefs));
  const classes = new Map<string, ReadonlySet<string>>();
  for (const c of Object.values(input.model.actionContracts))
    classes.set(c.address, new Set(c.failureClasses));
  return {
    store: input.store,
    runtime: input.runtime,
    model: input.model,
    limits: input.limits,
    now: input.now,
    fence: undefined as Fence | undefined,
    outcomeEvidence: (address) => evidence.get(address),
    failureClasses: (address) => classes.get(address),
    log: input.log,
    ...(input.onRefusal ? { onRefusal: input.onRefusal } : {}),
    timers: input.timers ?? systemTimers,
    outerTimeoutMs: outerTimeouts(input.offers),
    ...(input.onLate ? { onLate: input.onLate } : {}),
    ...(input.anchor ? { anchor: input.anchor } : {}),
    ...(input.serviceHealth ? { serviceHealth: input.serviceHealth } : {}),
  };
}

/** A v2 attempt the scheduler planned: the continuation it was planned from and the plan. */
export interface V2Attempt {
  readonly plan: V2Plan;
  readonly state: ActivityContinuation;
  readonly attempt: PlannedAttempt;
  /** Under v3: the budgets and the ledger holding this attempt's reservation. */
  readonly v3?: { readonly plan: V3Plan; readonly ledger: ResourceLedger };
}

/** What became of a v3 attempt's reservation. */
export interface ResourceOutcome {
  readonly result: "committed" | "released";
  readonly reservation: Readonly<Record<string, number>>;
  /** The committed measured vector, by budget id. */
  readonly measurement?: Readonly<Record<string, number>>;
  /** Why the reservation was released (RAES's measurement codes). */
  readonly code?: string;
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
  /** Under v3: the reservation and what became of it. */
  readonly resources?: ResourceOutcome;
}

/**
 * The history frame of a policy's invocations: the runtime's implementation identity (RAES's
 * implementation selection; without one, the policy's implementation ref at version `0`) and the
 * policy's shared-time contracts on its clock.
 */
export function eventFrameFor(
  model: RuntimeModel,
  policy: CompiledAutonomousPolicy,
  runtime: Pick<ParticipantRuntime, "implementationIdentity">,
): EventFrame {
  const identity = runtime.implementationIdentity ?? {
    name: policy.participantImplementationRef,
    version: "0",
  };
  return {
    actorProvenance: actorProvenance(identity),
    clockAuthority: policy.clockAddress,
    timeDomain: model.clocks[policy.clockAddress]?.participantTimeDomain ?? "scenario_time",
    temporalContractIds: policy.temporalConstraintAddresses,
  };
}

/** The history frame of each of the model's policies, by policy address. */
export function policyFrames(
  model: RuntimeModel,
  runtime: Pick<ParticipantRuntime, "implementationIdentity">,
): (policyAddress: string) => EventFrame {
  return (policyAddress) => {
    const policy = model.autonomousPolicies[policyAddress];
    if (!policy) throw new Error(`no autonomous policy ${policyAddress} in the model`);
    return eventFrameFor(model, policy, runtime);
  };
}

/** A closed invocation's events: its tool triples in admission order, then its outer triple if it has a result. */
export function closeEvents(
  frame: EventFrame,
  invocation: InvocationRecord,
  toolActions: readonly ToolActionRecord[],
  outer: OuterResult | undefined,
): HistoryEventDraft[] {
  return [
    ...toolActions.flatMap((a) => toolActionTriple(frame, a, invocation)),
    ...(outer ? outerTriple(frame, invocation, outer) : []),
  ];
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
  v2?: V2Attempt,
): Promise<InvocationSummary> {
  const { policy, participantAddress } = spec;
  const actionContractAddress =
    v2?.attempt.candidate.actionContractAddress ??
    policy.actionOrder[scheduler.cursor % policy.actionOrder.length] ??
    "";
  const binding = policy.executionBindings.find((b) => b.actionContractAddress === actionContractAddress);
  const episodeId = clock.episodeId ?? episodeIdFor(participantAddress, clock.segment);
  const observationPoint = observationPointFor(clock.clockAddress, clock.segment, clock.tick);
  const id =
    v2?.attempt.attemptId ?? outerActionInstanceId(policy.address, participantAddress, scheduler.nextOrdinal);
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
    ...(v2 ? { activity: settleAttempt(v2.plan, v2.state, v2.attempt, CONSUMED_ATTEMPT) } : {}),
    updatedAt: openedAt,
  };
  // A service changed since it was read (a pause or drain from any process) refuses the open, nothing written.
  if (ctx.admission) await ctx.store.openInvocation(invocation, opened, ctx.fence, undefined, ctx.admission);
  else await ctx.store.openInvocation(invocation, opened, ...fenceArgs(ctx.fence));
  // Only a degraded service is marked on the span; a healthy one adds nothing.
  const health = ctx.serviceHealth?.(invocation.policyAddress);
  const tracing = new InvocationTrace(invocation, ctx.now, health === "degraded" ? health : undefined);

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
    ...(v2?.v3 ? { resourceMeasurementRequirements: measurementRequirements(v2.v3.plan) } : {}),
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
  const { settled: toolActions, changed } = core
    ? await settleForClose(core, tracing)
    : { settled: [], changed: [] };
  const check =
    ended.kind === "returned"
      ? validateOuterResult(ended.value, request, ctx.outcomeEvidence(policy.observationBoundaryAddress))
      : undefined;
  const outer = check?.ok ? check.result : timedOut ? timeoutResult(request, snapshot) : undefined;
  const closedAt = ctx.now();
  const state = outer && isSuccessfulStatus(outer.status) ? "succeeded" : "failed";
  // A harness that threw or answered an invalid result consumed its attempt as a crash does.
  const resources = v2?.v3 && settleResources(v2.v3, request, clock.segment, ended, outer !== undefined);
  const harnessError = v2 !== undefined && (outer === undefined || resources?.outcome.code !== undefined);
  const settled = v2
    ? {
        ...opened,
        activity: settleAttempt(v2.plan, v2.state, v2.attempt, attemptOutcome(outer)),
        ...(resources ? { resources: resources.ledger } : {}),
      }
    : opened;
  if (resources)
    tracing.resources(resources.outcome.result, resources.outcome.reservation, resources.outcome.measurement);
  const next = schedulerAfterClose(
    settled,
    {
      indeterminate: toolActions.some((a) => a.settlement === "indeterminate"),
      // RAES counts only `succeeded` as success: partial_success stops a failure_policy `stop` scheduler.
      outerFailed: outer?.status !== "succeeded",
      // Under v2 the continuation carries failure_policy itself (lifecycle `failed`).
      stopsOnFailure: !v2 && policy.failurePolicy === "stop",
      harnessError,
      maxActionAttempts: policy.maxActionAttempts,
    },
    closedAt,
  );
  const provenance = v2 && v2Provenance(v2.plan, policy.profile, v2.attempt, outer?.status ?? "unknown");
  const close = { endedAt: closedAt, updatedAt: closedAt, ...tracing.refusals() };
  const closed: InvocationRecord = { ...invocation, state, ...close };
  // The invocation span ends whether or not the close commits, so no span is left open.
  let committed = false;
  try {
    await ctx.store.commitInvocation(
      {
        invocation: closed,
        // An action settled before the close is stored as it stands: only the close's settlements are written.
        toolActions: changed,
        events: withProvenance(
          closeEvents(eventFrameFor(ctx.model, policy, ctx.runtime), closed, toolActions, outer),
          provenance,
        ),
        scheduler: next,
        ...(ctx.anchor ? { anchor: ctx.anchor } : {}),
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
        : resources?.error
          ? { error: resources.error }
          : {}),
    ...(timedOut ? { timedOut } : {}),
    ...(resources ? { resources: resources.outcome } : {}),
  };
}

/**
 * The port's settlements for the close. A port that cannot settle (the store could not say whether a
 * claim whose answer was lost is stored) fails the close before anything is written, as a close the
 * store could not commit: the invocation stays running for recovery, its span ends `commit_failed`,
 * and the error is the store's unavailability (the step answers `ledger_unavailable`), or its damage
 * when the read failed for a damaged schema (`store.schema-damaged`).
 */
async function settleForClose(
  core: InvocationToolActionPortCore,
  tracing: InvocationTrace,
): Promise<SettledAtClose> {
  try {
    return await core.settleForClose();
  } catch (error) {
    tracing.end("commit_failed", undefined);
    if (!(error instanceof UnheardClaimUnreadableError)) throw error;
    // A damaged schema is no outage: it keeps its code, so the step never answers ledger_unavailable for it.
    throw error.cause instanceof StoreSchemaDamagedError
      ? new StoreSchemaDamagedError(error.message, { cause: error })
      : new StoreUnavailableError(error.message, { cause: error });
  }
}

/**
 * The claims a failed step knows never ran: a close that could not read back a claim whose answer was
 * lost (`UnheardClaimUnreadableError`, anywhere in `error`'s causes). Its caller heard a refusal.
 */
export function unansweredClaimsOf(error: unknown): string[] {
  const found: string[] = [];
  // A bounded walk: a cycle of causes ends it.
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth += 1)
    if (at instanceof UnheardClaimUnreadableError && at.actionInstanceId !== "")
      found.push(at.actionInstanceId);
  return found;
}

const MEASUREMENT_ERRORS = {
  [MeasurementCode.untrusted]: RuntimeErrorCode.participant_resource_measurement_untrusted,
  [MeasurementCode.invalid]: RuntimeErrorCode.participant_resource_measurement_invalid,
} as const;

/**
 * Settles a v3 reservation after the native call, as RAES does: a valid result with the exact measured
 * vector commits it; anything else releases it. A valid result whose vector RAES does not trust is
 * RAES's error (its code on the summary), and the scheduler stops as on an invalid result.
 */
function settleResources(
  v3: { readonly plan: V3Plan; readonly ledger: ResourceLedger },
  request: ParticipantActionRequest,
  segment: number,
  ended: { readonly kind: string; readonly value?: unknown },
  validResult: boolean,
): { ledger: ResourceLedger; outcome: ResourceOutcome; error?: RuntimeError } {
  const reservation = v3.ledger.held?.vector ?? {};
  if (!validResult || ended.kind !== "returned") {
    const code = MeasurementCode.untrusted;
    return { ledger: releaseHeld(v3.ledger, segment, code), outcome: { result: "released", reservation } };
  }
  const value = ended.value as { readonly resourceMeasurements?: unknown };
  const check = checkMeasurements(
    value.resourceMeasurements,
    request.resourceMeasurementRequirements ?? [],
    request.actionInstanceId,
    request.executionGeneration,
  );
  if (!check.ok) {
    return {
      ledger: releaseHeld(v3.ledger, segment, check.code),
      outcome: { result: "released", reservation, code: check.code },
      error: new RuntimeError(
        MEASUREMENT_ERRORS[check.code],
        `the resource measurement vector is not committed: ${check.problem}`,
      ),
    };
  }
  return {
    ledger: commitHeld(v3.plan, v3.ledger, check.measured, segment),
    outcome: { result: "committed", reservation, measurement: check.measured },
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
      recordApproval: (id, approval, expected) => ctx.store.recordApproval(id, approval, expected),
      read: (id) => ctx.store.getToolAction(id),
    },
    outcomeEvidence: ctx.outcomeEvidence,
    failureClasses: ctx.failureClasses,
    now: ctx.now,
    observer,
    onLedgerFailure: (failure) => ctx.log(ledgerFailureLine(failure)),
    ...(ctx.onRefusal ? { onRefusal: ctx.onRefusal } : {}),
  });
}

import {
  type ActivityContinuation,
  type ResourceLedger,
  ResourcePoolMovedError,
  type SchedulerRecord,
  ServiceMovedError,
} from "../../store/index.js";
import { asLedgerError } from "../errors.js";
import {
  type InvocationContext,
  type InvocationSummary,
  runInvocation,
  unansweredClaimsOf,
} from "../invocation/index.js";
import {
  type DueWork,
  episodeIdFor,
  type ScheduleBook,
  type ScheduleBookOptions,
  type ScheduleSpec,
  scheduleKey,
  specOf,
} from "../schedule/index.js";
import { pausedContinuation, planDue, resumedContinuation, segmentStart } from "../v2/index.js";
import { THROTTLED, type V3Plan } from "../v3/index.js";
import { ADMISSION_ATTEMPTS, admissionLeftLine, admissionOf, type DueRunner } from "./due.js";
import { heldAt, reserveAttempt, type V3Run } from "./v3.js";

/** The ScheduleBook hook that gives v2 schedules their continuation. */
export const v2Hooks: Pick<ScheduleBookOptions, "segmentStart"> = {
  segmentStart: (spec, segment, tick) =>
    spec.v2
      ? {
          activity: segmentStart(
            spec.v2.activity,
            spec.v2.stream,
            segment,
            episodeIdFor(spec.participantAddress, segment),
            tick,
          ),
        }
      : {},
};

/**
 * The v2 schedules that may have work at `tick`, in RAES's order: policies by address, each
 * policy's participants in participant_refs order.
 */
export function v2Order(specs: readonly ScheduleSpec[]): ScheduleSpec[] {
  const v2 = specs.filter((s) => s.v2);
  const ranks = new Map<ScheduleSpec["policy"], Map<string, number>>();
  const rank = (s: ScheduleSpec) => {
    let byPolicy = ranks.get(s.policy);
    if (!byPolicy) {
      byPolicy = new Map(s.policy.participantAddresses.map((address, i) => [address, i]));
      ranks.set(s.policy, byPolicy);
    }
    return byPolicy.get(s.participantAddress) ?? -1;
  };
  return v2.sort((a, b) =>
    a.policy.address < b.policy.address ? -1 : a.policy.address > b.policy.address ? 1 : rank(a) - rank(b),
  );
}

/**
 * Runs one v2 participant's due attempts at `tick` serially (bursts and retries), committing each.
 * Under v3 each attempt first reserves its whole vector; a throttled one is held back, due again at the
 * participant's next tick, and ends the participant's work at this tick (DESIGN §15).
 */
export async function runV2Due(
  runner: DueRunner,
  spec: ScheduleSpec,
  tick: number,
  v3Run?: V3Run,
): Promise<InvocationSummary[]> {
  const { ctx, book } = runner;
  const out: InvocationSummary[] = [];
  const plan = spec.v2;
  if (!plan) return out;
  let refused = 0;
  for (;;) {
    const entry = book.runnable(spec.participantAddress, spec.policy.address);
    const state = entry?.scheduler.activity;
    if (!entry || !state) break;
    const due = planDue(plan, state, tick);
    if (due.kind === "none") break;
    if (due.kind === "idle") {
      await saveContinuation(ctx, book, entry.scheduler, due.state);
      break;
    }
    const clock = book.clockFor(spec, tick);
    let scheduler = entry.scheduler;
    let v3: { plan: V3Plan; ledger: ResourceLedger } | undefined;
    if (spec.v3 && v3Run) {
      const at = {
        operationId: due.attempt.attemptId,
        tick,
        segment: clock.segment,
        generation: clock.generation,
      };
      const reserved = await reserveAttempt(ctx.store, book, v3Run, { ...spec, v3: spec.v3 }, scheduler, at);
      if (reserved.kind === "throttled") {
        // Held back: the continuation stays as it was, due again at the next tick; the rest commits.
        const next_tick = tick + spec.progression.stepTicks;
        await saveContinuation(
          ctx,
          book,
          { ...scheduler, resources: reserved.ledger },
          { ...state, next_tick },
        );
        v3Run.onThrottle?.({
          ...reserved.throttle,
          participantAddress: spec.participantAddress,
          policyAddress: spec.policy.address,
          operationId: at.operationId,
          tick,
          code: THROTTLED,
        });
        break;
      }
      scheduler = { ...scheduler, resources: reserved.ledger };
      v3 = { plan: spec.v3, ledger: reserved.ledger };
    }
    let summary: InvocationSummary;
    try {
      summary = await runInvocation(
        {
          ...ctx,
          fence: book.fenceFor(spec.participantAddress),
          ...admissionOf(book, spec.participantAddress),
        },
        spec,
        scheduler,
        clock,
        { plan, state: due.state, attempt: due.attempt, ...(v3 ? { v3 } : {}) },
      );
    } catch (error) {
      if (error instanceof ResourcePoolMovedError && v3Run) {
        // Another process took room in a shared pool first; nothing was written: read again, decide again.
        v3Run.shared.synced = false;
        continue;
      }
      if (error instanceof ServiceMovedError) {
        // A control stored since the services were read (any process): nothing was written; read, decide anew.
        if (v3Run) v3Run.shared.synced = false;
        await runner.refresh();
        refused += 1;
        if (refused < ADMISSION_ATTEMPTS) continue;
        ctx.log(admissionLeftLine(spec.participantAddress, tick));
        break;
      }
      if (v3Run) v3Run.shared.synced = false;
      book.markUncertain(spec.participantAddress, spec.policy.address, unansweredClaimsOf(error));
      throw asLedgerError(error);
    }
    if (v3 && v3Run) heldAt(v3Run.shared, v3.ledger.held?.poolVersions);
    refused = 0;
    book.updateScheduler(summary.scheduler);
    runner.closed?.(summary);
    out.push(summary);
  }
  await book.finishWindow(spec.participantAddress, spec.policy.address);
  return out;
}

/** Commits a continuation that changed outside an invocation (empty eligible set, pause, resume), fenced. */
async function saveContinuation(
  ctx: InvocationContext,
  book: ScheduleBook,
  record: SchedulerRecord,
  activity: ActivityContinuation,
): Promise<void> {
  // A `complete` disposition on an empty eligible set completes the record with its continuation.
  const completes = record.lifecycle === "running" && activity.lifecycle_state === "completed";
  const next: SchedulerRecord = {
    ...record,
    ...(completes ? { lifecycle: "completed" as const } : {}),
    activity,
    updatedAt: ctx.now(),
  };
  const fence = book.fenceFor(record.participantAddress);
  await ctx.store.saveScheduler(next, ...(fence ? [fence] : []));
  book.updateScheduler(next);
}

/** Pause (true) moves running continuations to `paused`; resume moves them back. */
export async function pauseV2(ctx: InvocationContext, book: ScheduleBook, paused: boolean): Promise<void> {
  for (const record of book.describe()) {
    if (!record.activity) continue;
    const activity = paused ? pausedContinuation(record.activity) : resumedContinuation(record.activity);
    if (activity !== record.activity) await saveContinuation(ctx, book, record, activity);
  }
}

/** True when this due work belongs to a v2 schedule. */
export function isV2Work(specs: readonly ScheduleSpec[], d: DueWork): boolean {
  return specOf(specs, d.participantAddress, d.policyAddress) !== undefined;
}

/** Runs every v2 schedule's due work serially in RAES's order (`specs` as `v2Order` sorts them). */
export async function runV2Work(
  runner: DueRunner,
  specs: readonly ScheduleSpec[],
  due: readonly DueWork[],
  v3Run?: V3Run,
): Promise<InvocationSummary[]> {
  const out: InvocationSummary[] = [];
  // Due work looked up by schedule, so a step stays linear in the due participants.
  const byKey = new Map(due.map((d) => [scheduleKey(d.participantAddress, d.policyAddress), d]));
  for (const spec of specs) {
    const work = byKey.get(scheduleKey(spec.participantAddress, spec.policy.address));
    for (const tick of work?.ticks ?? []) out.push(...(await runV2Due(runner, spec, tick, v3Run)));
  }
  return out;
}

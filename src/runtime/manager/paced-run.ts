import { type RuntimeTimers, sleep } from "../clock/index.js";
import type { InvocationSummary } from "../invocation/index.js";
import type { SchedulePosition } from "../schedule/index.js";

/** Options of one `step` or `run` call. */
export interface StepOptions {
  /** Overrides the manager's `concurrency` for this call. */
  readonly concurrency?: number;
}

/** What one `step(n)` did. */
export interface StepSummary {
  readonly steps: number;
  readonly invocations: readonly InvocationSummary[];
}

/** Options of `RuntimeManager.run`: real-time driving of the shared clock. */
export interface PacedRunOptions {
  /**
   * Wall-clock milliseconds per progression step. Default: from the SDL, as RAES's wall driver paces
   * (the time domain's tick period ÷ the progression's pacing_ratio per tick), for a `real_time` or
   * `dilated` progression; other clocks need it given.
   */
  readonly tickMs?: number;
  /** Aborting it ends the run after the step in progress (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Stop after this many steps; default: run until aborted or every scheduler has finished. */
  readonly steps?: number;
  /** Told after every step, for progress; it observes and never steers. */
  readonly onStep?: (step: PacedStep) => void;
}

/** One step of a paced run, with its timing relative to the run's start. */
export interface PacedStep {
  /** 1-based: step k is due at k × tickMs. */
  readonly index: number;
  readonly dueMs: number;
  readonly startedMs: number;
  /** How long after its due time the step started (timer jitter, or a previous overrun). */
  readonly latenessMs: number;
  /** True when the previous step was still running at this step's due time. */
  readonly late: boolean;
  /** True when the step started later than the SDL's drift bound allows: pacing was lost (clock pacing only). */
  readonly pacingLost: boolean;
  readonly durationMs: number;
  readonly summary: StepSummary;
  /** Each owned schedule's clock tick and next due tick after the step. */
  readonly positions: readonly SchedulePosition[];
}

/** Why a paced run ended. */
export const PacedRunEnd = {
  /** The requested number of steps ran. */
  steps: "steps",
  /** The signal aborted (Ctrl-C). */
  signal: "signal",
  /** Every scheduler is completed or stopped. */
  schedulers_finished: "schedulers_finished",
} as const;
/** Why a paced run ended. */
export type PacedRunEnd = (typeof PacedRunEnd)[keyof typeof PacedRunEnd];

/** What a paced run did: steps, how many were delayed by an overrun, and the worst lateness. */
export interface PacedRunSummary {
  readonly tickMs: number;
  /** Where the pacing came from: `tick_ms` given, or the SDL `clock` (tick period ÷ pacing_ratio). */
  readonly pacing: "tick_ms" | "clock";
  /** With clock pacing: how late a step may start (the drift bound) in ms. */
  readonly boundMs?: number;
  /** Steps that started later than the bound: each marks the clock's services `degraded`. */
  readonly pacingLostSteps: number;
  readonly steps: number;
  readonly invocations: number;
  readonly lateSteps: number;
  readonly worstLatenessMs: number;
  readonly elapsedMs: number;
  readonly ended: PacedRunEnd;
}

/** What the pacing loop drives. */
export interface PacedRunTarget {
  step(): Promise<StepSummary>;
  positions(): readonly SchedulePosition[];
  /** True while this process waits for participants other processes are handing over; it does not end then. */
  awaitingShare?(): boolean;
  /** Told before a step that starts more than `boundMs` late, so the step runs with pacing lost recorded. */
  pacingLost?(latenessMs: number): Promise<void>;
  readonly timers: RuntimeTimers;
}

/** The pacing a run keeps: the step period, where it came from and, for clock pacing, the lateness bound. */
export interface Pacing {
  readonly tickMs: number;
  readonly source: "tick_ms" | "clock";
  readonly boundMs?: number;
}

/**
 * Steps `target` once per `tickMs` of wall time. Step k is due at start + k × tickMs, computed
 * from the start and never from the previous step, so waiting errors do not accumulate. A step that
 * overruns delays the next, which then starts at once; steps are never skipped or run concurrently.
 */
export async function runPaced(
  target: PacedRunTarget,
  options: PacedRunOptions,
  pacing: Pacing,
): Promise<PacedRunSummary> {
  const tickMs = pacing.tickMs;
  const { timers, signal } = { timers: target.timers, signal: options.signal };
  const t0 = timers.now();
  let previousEnd = t0;
  let steps = 0;
  let invocations = 0;
  let lateSteps = 0;
  let worst = 0;
  let lost = 0;
  let ended: PacedRunEnd;
  for (;;) {
    if (options.steps !== undefined && steps >= options.steps) {
      ended = PacedRunEnd.steps;
      break;
    }
    if (target.positions().every((p) => p.finished) && !target.awaitingShare?.()) {
      ended = PacedRunEnd.schedulers_finished;
      break;
    }
    const index = steps + 1;
    const due = t0 + index * tickMs;
    // Even when behind, yield to the event loop: a store that answers synchronously would otherwise
    // keep the loop in microtasks, and Ctrl-C (a signal handler) would never run.
    if (due - timers.now() > 0) await sleep(timers, due - timers.now(), signal);
    else await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) {
      ended = PacedRunEnd.signal;
      break;
    }
    const started = timers.now();
    const late = previousEnd > due;
    const pacingLost = pacing.boundMs !== undefined && started - due > pacing.boundMs;
    if (pacingLost) {
      lost += 1;
      await target.pacingLost?.(started - due);
    }
    const summary = await target.step();
    previousEnd = timers.now();
    steps = index;
    invocations += summary.invocations.length;
    const latenessMs = Math.max(0, started - due);
    if (late) lateSteps += 1;
    if (latenessMs > worst) worst = latenessMs;
    options.onStep?.({
      index,
      dueMs: due - t0,
      startedMs: started - t0,
      latenessMs,
      late,
      pacingLost,
      durationMs: previousEnd - started,
      summary,
      positions: target.positions(),
    });
  }
  return {
    tickMs,
    pacing: pacing.source,
    ...(pacing.boundMs === undefined ? {} : { boundMs: pacing.boundMs }),
    pacingLostSteps: lost,
    steps,
    invocations,
    lateSteps,
    worstLatenessMs: worst,
    elapsedMs: timers.now() - t0,
    ended,
  };
}

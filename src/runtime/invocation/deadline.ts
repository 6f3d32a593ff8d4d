import type { ExecutionOfferIndex } from "../../manifest/index.js";
import type { RuntimeTimers } from "../clock/index.js";
import type { ParticipantActionRequest } from "../types.js";

/** How a bounded piece of harness work ended. */
export type BoundedOutcome<T> =
  | { readonly kind: "returned"; readonly value: T }
  | { readonly kind: "threw"; readonly error: unknown }
  | { readonly kind: "timed_out" };

/** How the late end of timed-out work went, for the one log line that says it was discarded. */
export type LateOutcome = "returned" | "threw";

/** The one log line saying a timed-out invocation's late result was discarded. */
export function lateResultLine(invocationId: string, how: LateOutcome): string {
  return `${invocationId} timed out earlier; its harness ${how} late and that result was discarded`;
}

/** What `runWithinDeadline` needs besides the work. */
export interface DeadlineOptions {
  /** The bound in milliseconds; undefined means none. */
  readonly timeoutMs: number | undefined;
  readonly timers: RuntimeTimers;
  /** Called synchronously when the bound expires, before the signal fires (the port closes first). */
  readonly onExpire: () => void;
  /** Called once if the work ends after the bound expired; its result is discarded. */
  readonly onLate: (how: LateOutcome) => void;
}

/** The reason an expired invocation's AbortSignal carries (the name `AbortSignal.timeout` uses). */
export function timeoutReason(timeoutMs: number): Error {
  const error = new Error(`the invocation's timeout (${timeoutMs} ms, the offer's timeout_seconds) expired`);
  error.name = "TimeoutError";
  return error;
}

/**
 * Runs `work` with an AbortSignal and waits at most `timeoutMs`. On expiry it returns `timed_out`
 * at once, whatever the work does: a harness that ignores its signal cannot hold the caller.
 */
export function runWithinDeadline<T>(
  options: DeadlineOptions,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<BoundedOutcome<T>> {
  const controller = new AbortController();
  const { timeoutMs } = options;
  let expired = false;
  const settled = Promise.resolve()
    .then(() => work(controller.signal))
    .then(
      (value): BoundedOutcome<T> => ({ kind: "returned", value }),
      (error: unknown): BoundedOutcome<T> => ({ kind: "threw", error }),
    );
  if (timeoutMs === undefined) return settled;
  return new Promise((resolve) => {
    const cancel = options.timers.after(timeoutMs, () => {
      expired = true;
      options.onExpire();
      controller.abort(timeoutReason(timeoutMs));
      resolve({ kind: "timed_out" });
    });
    void settled.then((outcome) => {
      if (expired) return options.onLate(outcome.kind === "returned" ? "returned" : "threw");
      cancel();
      resolve(outcome);
    });
  });
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * The bound on each outer invocation: the timeout_seconds of the offer covering its action,
 * implementation and targets. Registration admits only covered actions; should several offers cover
 * one, the shortest bound holds, since every one of them promised to finish within its own.
 */
export function outerTimeouts(
  offers: ExecutionOfferIndex,
): (request: ParticipantActionRequest) => number | undefined {
  const cache = new Map<string, number | undefined>();
  return (request) => {
    const key = `${request.actionContractAddress}\u0000${request.participantImplementationRef}\u0000${request.targetAddresses.join("\u0000")}`;
    if (cache.has(key)) return cache.get(key);
    let seconds: number | undefined;
    for (const offer of offers.covering(request)) {
      if (seconds === undefined || offer.timeoutSeconds < seconds) seconds = offer.timeoutSeconds;
    }
    // Beyond setTimeout's range (about 24.8 days) a bound would fire at once; treat it as none.
    const ms =
      seconds === undefined || !(seconds > 0) || seconds * 1000 > MAX_TIMER_MS
        ? undefined
        : Math.round(seconds * 1000);
    cache.set(key, ms);
    return ms;
  };
}

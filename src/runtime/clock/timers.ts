/** Wall-clock time and timers the runtime uses; injected so embedders and tests decide what time is. */
export interface RuntimeTimers {
  /** Monotonic milliseconds (never jumps with the system clock). */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** The process's own clock: `performance.now()` and `setTimeout`. */
export const systemTimers: RuntimeTimers = Object.freeze({
  now: () => performance.now(),
  after: (ms: number, fn: () => void) => {
    const timer = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
});

/** Resolves after `ms` on `timers`, or at once when `signal` aborts. */
export function sleep(timers: RuntimeTimers, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const cancel = timers.after(ms, done);
    signal?.addEventListener("abort", done, { once: true });
  });
}

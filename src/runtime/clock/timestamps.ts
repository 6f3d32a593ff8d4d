/** Epoch milliseconds with a fractional part, so timestamps can carry microseconds. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** ISO-8601 UTC with microseconds (as RAES writes), from epoch milliseconds that may have a fraction. */
export function isoMicros(ms: number): string {
  const whole = Math.floor(ms);
  // To the nearest microsecond: at today's epoch a double holds a millisecond fraction only to ±0.12 µs.
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const second = Math.floor(whole / 1000);
  // Every record of a step is stamped within the same second: its date and time are formatted once.
  if (second !== formatted.second) {
    formatted.second = second;
    formatted.prefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  return `${formatted.prefix}${String(whole - second * 1000).padStart(3, "0")}${String(micros).padStart(3, "0")}Z`;
}

const formatted = { second: Number.NaN, prefix: "" };

/** A microsecond ISO-8601 clock that formats each distinct reading once; several records share a reading. */
export function isoClock(nowMs: () => number): () => string {
  let last = Number.NaN;
  let lastIso = "";
  return () => {
    const ms = nowMs();
    if (ms !== last) {
      last = ms;
      lastIso = isoMicros(ms);
    }
    return lastIso;
  };
}

/** Times already parsed: a page reads each record time several times (bounded, emptied when full). */
const PARSED = new Map<string, number | undefined>();
const PARSED_MAX = 4096;

/** Milliseconds since the epoch of an ISO-8601 time (microseconds kept as a fraction), or undefined. */
export function isoTime(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const known = PARSED.get(iso);
  if (known !== undefined || PARSED.has(iso)) return known;
  if (PARSED.size >= PARSED_MAX) PARSED.clear();
  const ms = parseIsoTime(iso);
  PARSED.set(iso, ms);
  return ms;
}

function parseIsoTime(iso: string): number | undefined {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (!match) return undefined;
  const whole = Date.parse(`${match[1]}${match[3]}`);
  const fraction = match[2] === undefined ? 0 : Number(`0.${match[2]}`) * 1000;
  return Number.isNaN(whole) ? undefined : whole + fraction;
}

/** A duration for people: µs, ms, s or min. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The most diagnostics of one code a loader reports; the rest of that code are counted in one more line. */
export const MAX_DIAGNOSTICS_PER_CODE = 20;

/**
 * Keeps the first `limit` items of each code, in order, and puts in place of the first item left out of
 * each code one copy of it whose message is "and N more" (N of its code were left out). A small input
 * that repeats one mistake (one offer copied ten thousand times) then costs a bounded report, not one
 * line per copy. The first `from` items (a list already bounded its own way) are kept as they are.
 */
export function capPerCode<T extends { readonly code: string; readonly message: string }>(
  all: readonly T[],
  from = 0,
  limit: number = MAX_DIAGNOSTICS_PER_CODE,
): T[] {
  const summarize = (first: T, more: number): T => ({ ...first, message: `and ${more} more` });
  const items = all.slice(from);
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.code, (counts.get(item.code) ?? 0) + 1);
  if ([...counts.values()].every((count) => count <= limit)) return [...all];
  const seen = new Map<string, number>();
  const out: T[] = all.slice(0, from);
  for (const item of items) {
    const index = (seen.get(item.code) ?? 0) + 1;
    seen.set(item.code, index);
    if (index <= limit) out.push(item);
    else if (index === limit + 1) out.push(summarize(item, (counts.get(item.code) ?? 0) - limit));
  }
  return out;
}

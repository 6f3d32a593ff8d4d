import { MODEL_VALUE_BOUNDS, valueBoundsExceeded } from "../../input/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";

/**
 * Runs `work` on every item with at most `limit` running at once, starting them in the items' order
 * as slots free up; settles every one (as `Promise.allSettled`) and answers in the items' order.
 * A limit of `Infinity` starts them all at once.
 */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  // Each lane takes the next item when its last one settles, so no more than `limit` ever run.
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = { status: "fulfilled", value: await work(items[index] as T) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

/** A concurrency limit (a whole number ≥ 1), or `otherwise` when none is given (default unbounded). */
export function checkedConcurrency(limit: number | undefined, otherwise = Infinity): number {
  if (limit === undefined) return otherwise;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, not ${limit}`);
  }
  return limit;
}

/**
 * Refuses a model larger or deeper than any a loadable scenario compiles to, before any work: `open` is
 * given it already parsed, with no byte limit. (The manifest value is bounded by `checkManifest`.)
 */
export function assertModelInBounds(model: unknown): void {
  const problem = valueBoundsExceeded(model, MODEL_VALUE_BOUNDS);
  if (problem !== undefined)
    throw new RuntimeError(RuntimeErrorCode.model_too_large, problem.replace(/^the value/, "the model"));
}

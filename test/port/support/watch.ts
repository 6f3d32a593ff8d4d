import type { ControlPlaneStore, ToolActionRecord } from "../../../src/store/index.js";

/**
 * Wraps a real store so that after every tool-action write it counts the unsettled actions of that
 * invocation, keeping the highest count ever seen. The count is read from the store itself.
 */
export function watchUnsettled(inner: ControlPlaneStore): {
  store: ControlPlaneStore;
  peak: () => number;
  writes: () => number;
} {
  let peak = 0;
  let writes = 0;
  const after = async (record: ToolActionRecord) => {
    writes += 1;
    const all = await inner.listToolActions({ invocationId: record.invocationId });
    peak = Math.max(peak, all.filter((a) => a.phase !== "settled").length);
  };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "insertToolAction" && property !== "updateToolAction") return value.bind(target);
      return async (record: ToolActionRecord, ...rest: unknown[]) => {
        const result = await value.apply(target, [record, ...rest]);
        await after(record);
        return result;
      };
    },
  });
  return { store, peak: () => peak, writes: () => writes };
}

/** How many of an invocation's tool actions the store holds in each phase. */
export async function phaseCounts(
  store: ControlPlaneStore,
  invocationId: string,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = { admitted: 0, dispatched: 0, settled: 0 };
  for (const action of await store.listToolActions({ invocationId }))
    counts[action.phase] = (counts[action.phase] ?? 0) + 1;
  return counts;
}

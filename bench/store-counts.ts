/**
 * Transactions and round trips a store is asked for, counted by wrapping it: every write method is one
 * transaction; a round trip is one request to the PostgreSQL server (SQLite runs in-process: none).
 */
import { type ControlPlaneStore, STORE_DATA_WRITES } from "../src/store/index.js";

/** The store's write methods: each commits one transaction. */
const WRITES = new Set([
  ...STORE_DATA_WRITES,
  "acquireLease",
  "releaseLease",
  "heartbeatProcess",
  "leaveProcesses",
]);

/** Invocation closes per statement of a PostgreSQL `commitInvocations` (src/store/postgres/batch.ts). */
const PG_BATCH = 500;

/** PostgreSQL round trips of one call: one statement each, but for a batch of invocation closes. */
function pgRoundTrips(method: string, args: readonly unknown[]): number {
  // A compare-and-swap on the clock row this process last saw (src/store/postgres/clock-writes.ts);
  // another process having moved it costs a re-read and a second swap, not counted here.
  if (method === "updateClock") return 1;
  if (method === "commitInvocations") {
    const n = Array.isArray(args[0]) ? args[0].length : 0;
    return n === 1 ? 1 : 2 + Math.ceil(n / PG_BATCH);
  }
  return 1;
}

/** Running totals of one counted store. */
export interface StoreCounts {
  transactions: number;
  roundTrips: number;
  /** Calls per store method. */
  readonly calls: Map<string, number>;
}

/** The store wrapped so every call is counted in the returned totals. */
export function countingStore(
  store: ControlPlaneStore,
  backend: "sqlite" | "postgres",
): { store: ControlPlaneStore; counts: StoreCounts } {
  const counts: StoreCounts = { transactions: 0, roundTrips: 0, calls: new Map() };
  const counted = new Map<string, { readonly method: unknown; readonly wrapper: unknown }>();
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string" || property === "close") return value;
      const known = counted.get(property);
      if (known?.method === value) return known.wrapper;
      const write = WRITES.has(property);
      const wrapper = (...args: unknown[]) => {
        counts.calls.set(property, (counts.calls.get(property) ?? 0) + 1);
        if (write) counts.transactions += 1;
        if (backend === "postgres") counts.roundTrips += pgRoundTrips(property, args);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
      counted.set(property, { method: value, wrapper });
      return wrapper;
    },
  });
  return { store: wrapped, counts };
}

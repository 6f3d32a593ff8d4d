/**
 * The store bench's real side: a manager on a real store whose harness runs tool cycles in every
 * invocation, with the store wrapped to count the transactions and round trips it is asked for:
 * every write method is one transaction; a round trip is one request to the PostgreSQL server
 * (SQLite runs in-process: none).
 */
import { RuntimeManager, type RuntimeModel } from "../../src/index.js";
import { type ControlPlaneStore, openControlPlaneStore, STORE_DATA_WRITES } from "../../src/store/index.js";
import { manifestWithToolLimit, ToolCallRuntime } from "../shared/index.js";

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

/** Figures of one measured round of invocations. */
export interface PortRound {
  /** admit→dispatch→complete cycles run. */
  readonly cycles: number;
  /** Time spent inside the cycles, measured by the harness around them. */
  readonly portMs: number;
  /** Time of the whole `step` calls: lease, clock, invocation open, the cycles and the close commit. */
  readonly stepMs: number;
  /** Store transactions and PostgreSQL round trips of the whole steps, and of the tool-action writes alone. */
  readonly transactions: number;
  readonly roundTrips: number;
  readonly toolActionTransactions: number;
  /** Transactions of the steps' lease and membership bookkeeping (a heartbeat per step), not of the invocations. */
  readonly leaseTransactions: number;
  /** Calls (one round trip each on PostgreSQL) of that bookkeeping: its writes and reads (the lease list). */
  readonly leaseCalls: number;
  /** Invocations the round ran (one per step). */
  readonly invocations: number;
}

/** A manager on a real store whose harness runs `cyclesPerInvocation` tool cycles in every invocation. */
export interface PortRun {
  round(invocations: number): Promise<PortRound>;
  close(): Promise<void>;
}

/** Opens a manager on the store URL with the example model and manifest (tool limit raised to fit). */
export async function openPortRun(
  url: string,
  model: RuntimeModel,
  cyclesPerInvocation: number,
): Promise<PortRun> {
  const runtime = new ToolCallRuntime(cyclesPerInvocation);
  const opened = await openControlPlaneStore(url);
  const { store, counts } = countingStore(opened, url.startsWith("sqlite:") ? "sqlite" : "postgres");
  const calls = (...methods: string[]) => methods.reduce((n, m) => n + (counts.calls.get(m) ?? 0), 0);
  const toolActionWrites = () => calls("insertToolAction", "updateToolAction");
  const leaseWrites = () => calls("heartbeatProcess", "acquireLease", "releaseLease", "leaveProcesses");
  const leaseCalls = () => leaseWrites() + calls("listLeases", "getLease");
  const manager = await RuntimeManager.open({
    model,
    manifest: manifestWithToolLimit(Math.max(16, cyclesPerInvocation)),
    runtime,
    store,
  });
  return {
    round: async (invocations) => {
      const portBefore = runtime.portNs;
      const cyclesBefore = runtime.cycles;
      const before = {
        ...counts,
        toolActions: toolActionWrites(),
        leases: leaseWrites(),
        leaseCalls: leaseCalls(),
      };
      const start = performance.now();
      for (let i = 0; i < invocations; i += 1) {
        const [summary] = (await manager.step(1)).invocations;
        if (summary?.state !== "succeeded") throw new Error(`invocation did not succeed: ${summary?.state}`);
      }
      return {
        cycles: runtime.cycles - cyclesBefore,
        portMs: Number(runtime.portNs - portBefore) / 1e6,
        stepMs: performance.now() - start,
        transactions: counts.transactions - before.transactions,
        roundTrips: counts.roundTrips - before.roundTrips,
        toolActionTransactions: toolActionWrites() - before.toolActions,
        leaseTransactions: leaseWrites() - before.leases,
        leaseCalls: leaseCalls() - before.leaseCalls,
        invocations,
      };
    },
    close: async () => {
      await manager.close();
      await opened.close();
    },
  };
}

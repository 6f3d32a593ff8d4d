import { RuntimeManager, type RuntimeModel } from "../src/index.js";
import { openControlPlaneStore } from "../src/store/index.js";
import { countingStore } from "./store-counts.js";
import { manifestWithToolLimit, ToolCallRuntime } from "./store-harness.js";

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

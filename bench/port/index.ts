/**
 * `npm run bench -- port [--quick] [--port-only]`: admit→dispatch→complete lifecycles per second through the real
 * port (`InvocationToolActionPortCore` over a memory-store ledger, fenced as the manager fences it),
 * against the lifecycle's floor measured in the same run: `canonicalDigest(request)` + one Map insert
 * for admit, one Map lookup + insert for dispatch and for complete. Goal: port cost ≤ 3 × floor.
 * Port and floor batches alternate, so both see the same machine load; the median batch counts.
 */
import { canonicalDigest } from "../../src/compiler/index.js";
import { InvocationToolActionPortCore, type ParticipantToolActionRequest } from "../../src/port/index.js";
import { MemoryControlPlaneStore } from "../../src/store/index.js";
import { EXAMPLE, exampleModel } from "../../test/helpers/example.js";
import {
  FIRST_INVOCATION,
  openCoreOptions,
  openFirstInvocation,
  rulesFor,
} from "../../test/port/support/core.js";
import {
  alternate,
  type BlockTime,
  fmt,
  median,
  printNote,
  printTable,
  quickMode,
  timedBlock,
} from "../shared/index.js";

/** Lifecycles per batch; a fresh port and store per batch keep memory flat. */
const BATCH = 5_000;

function requestFor(n: number): ParticipantToolActionRequest {
  return {
    toolCallId: `call-${n}`,
    invocationActionInstanceId: FIRST_INVOCATION.invocationActionInstanceId,
    participantAddress: FIRST_INVOCATION.participantAddress,
    episodeId: FIRST_INVOCATION.episodeId,
    participantImplementationRef: FIRST_INVOCATION.participantImplementationRef,
    toolAffordanceAddress: EXAMPLE.affordance,
    actionContractAddress: EXAMPLE.action,
    observationBoundaryAddress: EXAMPLE.boundary,
    targetAddresses: [EXAMPLE.portal],
    executionScopeRef: FIRST_INVOCATION.executionScopeRef,
    executionGeneration: FIRST_INVOCATION.executionGeneration,
  };
}

const rules = rulesFor(exampleModel());

/** One batch through the real port. */
async function portBatch(): Promise<BlockTime> {
  const store = new MemoryControlPlaneStore();
  await openFirstInvocation(store);
  const lease = await store.acquireLease(EXAMPLE.participant, "bench", 600_000);
  if (!lease) throw new Error("no lease");
  const fence = { participantAddress: EXAMPLE.participant, token: lease.token };
  const core = new InvocationToolActionPortCore({
    ...openCoreOptions(exampleModel()),
    rules,
    limits: { maxToolActionsPerInvocation: BATCH, maxConcurrentToolActionsPerInvocation: BATCH },
    ledger: {
      insert: (record) => store.insertToolAction(record, fence),
      update: (record, expected) => store.updateToolAction(record, expected, fence),
    },
  });
  core.open();
  const { port } = core;
  return timedBlock(BATCH, async () => {
    for (let n = 1; n <= BATCH; n += 1) {
      const decision = await port.admit(requestFor(n));
      if (!decision.admitted) throw new Error(`admit refused: ${decision.refusal}`);
      const id = decision.actionInstanceId;
      const receipt = await port.dispatch(id);
      if (!receipt.accepted) throw new Error(`dispatch refused: ${receipt.refusal}`);
      const ack = await port.complete(id, {
        status: "succeeded",
        participantAddress: port.participantAddress,
        episodeId: port.episodeId,
        actionInstanceId: id,
        actionContractAddress: EXAMPLE.action,
        observationPoint: port.observationPoint,
      });
      if (!ack.ok) throw new Error(`complete refused: ${ack.refusal}`);
    }
  });
}

/** One batch of the floor: digest + one Map insert/lookup per step, with the same request and outcome objects. */
async function floorBatch(): Promise<BlockTime> {
  const records = new Map<string, { phase: string; outcome?: unknown }>();
  const prefix = `${FIRST_INVOCATION.invocationActionInstanceId}:tool=`;
  let digests = 0;
  const timing = await timedBlock(BATCH, async () => {
    for (let n = 1; n <= BATCH; n += 1) {
      const request = requestFor(n);
      if (canonicalDigest(request).length > 0) digests += 1;
      const id = `${prefix}${n}`;
      records.set(id, { phase: "admitted" });
      if (records.get(id)?.phase !== "admitted") throw new Error("floor lost its record");
      records.set(id, { phase: "dispatched" });
      const outcome = {
        status: "succeeded",
        participantAddress: FIRST_INVOCATION.participantAddress,
        episodeId: FIRST_INVOCATION.episodeId,
        actionInstanceId: id,
        actionContractAddress: EXAMPLE.action,
        observationPoint: FIRST_INVOCATION.observationPoint,
      };
      if (records.get(id)?.phase !== "dispatched") throw new Error("floor lost its record");
      records.set(id, { phase: "settled", outcome });
    }
  });
  if (digests !== BATCH || records.size !== BATCH) throw new Error("floor skipped work");
  return timing;
}

/** Lifecycles per second, from the median batch of one kind of time. */
function rate(blocks: readonly BlockTime[], kind: "ms" | "cpuMs"): number {
  return (BATCH * 1000) / median(blocks.map((b) => b[kind] ?? Number.NaN));
}

/** Runs the suite and prints lifecycles/s of port and floor and their cost ratio. */
export async function runPortBench(
  argv: readonly string[] = [],
): Promise<{ port: number; floor: number; ratio: number }> {
  const rounds = quickMode(argv) ? 4 : 20;
  if (argv.includes("--port-only")) {
    // For `node --cpu-prof`: only the port runs, so the profile attributes nothing to the floor.
    for (let i = 0; i < rounds + 3; i += 1) await portBatch();
    return { port: Number.NaN, floor: Number.NaN, ratio: Number.NaN };
  }
  const run = await alternate(portBatch, floorBatch, { blocks: rounds, warmup: 3 });
  const portRuns = run.real;
  const floorRuns = run.floor;
  const row = (label: string, runs: readonly BlockTime[]) => [
    label,
    String(runs.length * BATCH),
    fmt(rate(runs, "ms"), 0),
    fmt(rate(runs, "cpuMs"), 0),
    fmt(1e6 / rate(runs, "cpuMs"), 2),
  ];
  printTable(
    `port: admit→dispatch→complete, memory store, ${rounds} alternating batches of ${BATCH} (median batch)`,
    ["case", "lifecycles", "per s (wall)", "per s (CPU)", "CPU µs/lifecycle"],
    [row("real port (memory ledger)", portRuns), row("floor (digest + Map)", floorRuns)],
  );
  const port = rate(portRuns, "cpuMs");
  const floor = rate(floorRuns, "cpuMs");
  const ratio = floor / port;
  const wallRatio = rate(floorRuns, "ms") / rate(portRuns, "ms");
  printNote(
    `\nport cost / floor cost: ${fmt(ratio, 2)} on CPU time, ${fmt(wallRatio, 2)} on wall time (goal ≤ 3${ratio <= 3 ? ", met" : ", NOT met"})`,
  );
  return { port, floor, ratio };
}

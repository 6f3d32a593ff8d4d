/**
 * `npm run bench -- peers`: raes-ts beside DBOS Transact (`@dbos-inc/dbos-sdk`, a dev dependency used
 * only here) and raw `pg`, on the same PostgreSQL, in one process, in blocks taken in turn after one
 * warm-up block each. The workload is one invocation with 4 tool actions, each 3 durable steps:
 *   - raes-ts: `RuntimeManager.step` on the PostgreSQL store; the agent runs 4 admit→dispatch→complete
 *     cycles on its port (claim, dispatch, settlement: three commits each), between the invocation's
 *     open and close;
 *   - DBOS: one workflow per invocation running 4 × 3 checkpointed steps (`DBOS.runStep`), each a
 *     no-op whose output DBOS writes to its system database, beside the workflow's own status rows;
 *   - raw pg (the floor): the same 14 commits by hand with one client: an invocation row inserted,
 *     per tool action a row inserted and updated twice, the invocation row updated at the close.
 * Reports median ms per invocation of each side and the ratios: raes-ts throughput ÷ DBOS (goal ≥ 2.5)
 * and ÷ raw pg (goal ≥ 0.6). `--blocks=N` (default 7; `--quick` 3), `--invocations=N` per block (default 20).
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import type {
  InvocationToolActionPort,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
} from "../../src/index.js";
import { RuntimeManager } from "../../src/index.js";
import { modelWithAttempts } from "../../test/helpers/example.js";
import { oneToolCall } from "../../test/helpers/tool-requests.js";
import {
  type Block,
  fmt,
  manifestWithToolLimit,
  median,
  noopResult,
  PG_URL,
  pgAvailable,
  pgSchema,
  printNote,
  printTable,
  quickMode,
  rotate,
  timedBlock,
} from "../shared/index.js";

const ACTIONS = 4;
const STEPS = 3;
const log = (message: string) => process.stderr.write(`[peers bench] ${message}\n`);

/** The agent: 4 tool calls, one after another, on each invocation's port. */
class FourToolCalls implements ParticipantRuntime {
  readonly #ports = new Map<string, InvocationToolActionPort>();
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }
  async admitAction(request: ParticipantActionRequest): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    if (port === undefined) throw new Error("no port attached");
    for (let k = 0; k < ACTIONS; k += 1) await oneToolCall(port, `call-${k}`);
    return noopResult(request);
  }
}

interface Side {
  readonly name: string;
  readonly block: Block;
  close(): Promise<void>;
}

async function raesSide(perBlock: number, blocks: number): Promise<Side> {
  const place = pgSchema("peers_raes");
  const manager = await RuntimeManager.open({
    model: modelWithAttempts((blocks + 2) * perBlock + 2),
    manifest: manifestWithToolLimit(ACTIONS),
    runtime: new FourToolCalls(),
    store: place.url,
  });
  return {
    name: "raes-ts (PostgreSQL store)",
    block: () =>
      timedBlock(perBlock, async () => {
        for (let i = 0; i < perBlock; i += 1) {
          const { invocations } = await manager.step(1);
          if (invocations.length !== 1 || invocations[0]?.state !== "succeeded")
            throw new Error("an invocation did not succeed");
        }
      }),
    close: async () => {
      await manager.close();
      await place.drop();
    },
  };
}

async function dbosSide(perBlock: number): Promise<Side> {
  const schema = `bench_peers_dbos_${process.pid}_${Date.now().toString(36)}`;
  let steps = 0;
  const invocation = DBOS.registerWorkflow(
    async (n: number) => {
      for (let k = 0; k < ACTIONS; k += 1) {
        for (let s = 0; s < STEPS; s += 1) {
          await DBOS.runStep(async () => n * 100 + k * 10 + s, { name: `action-${k}-step-${s}` });
          steps += 1;
        }
      }
      return n;
    },
    { name: "invocation" },
  );
  DBOS.setConfig({
    name: "raes-peers-bench",
    systemDatabaseUrl: PG_URL,
    systemDatabaseSchemaName: schema,
    logLevel: "error",
  });
  await DBOS.launch();
  let n = 0;
  return {
    name: "DBOS Transact (workflow of 12 steps)",
    block: () =>
      timedBlock(perBlock, async () => {
        for (let i = 0; i < perBlock; i += 1) {
          n += 1;
          if ((await invocation(n)) !== n) throw new Error("a workflow returned the wrong value");
        }
      }),
    close: async () => {
      await DBOS.shutdown();
      if (steps === 0) throw new Error("DBOS ran no step");
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end());
    },
  };
}

async function rawSide(perBlock: number): Promise<Side> {
  const place = pgSchema("peers_raw");
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA ${place.schema}`);
  await client.query(`SET search_path TO ${place.schema}`);
  await client.query(
    `CREATE TABLE invocations (id text PRIMARY KEY, state text NOT NULL, record jsonb NOT NULL,
       created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
  );
  await client.query(
    `CREATE TABLE tool_actions (id text PRIMARY KEY, invocation_id text NOT NULL, phase text NOT NULL,
       record jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
  );
  await client.query("CREATE INDEX ON tool_actions (invocation_id)");
  const now = () => new Date().toISOString();
  const record = (id: string) => JSON.stringify({ id, participant: "participant", note: "x".repeat(200) });
  return {
    name: "raw pg (14 commits by hand)",
    block: () =>
      timedBlock(perBlock, async () => {
        for (let i = 0; i < perBlock; i += 1) {
          const inv = randomUUID();
          await client.query({
            name: "open",
            text: "INSERT INTO invocations VALUES ($1, 'running', $2, $3, $3)",
            values: [inv, record(inv), now()],
          });
          for (let k = 0; k < ACTIONS; k += 1) {
            const id = `${inv}:tool=${k}`;
            await client.query({
              name: "claim",
              text: "INSERT INTO tool_actions VALUES ($1, $2, 'admitted', $3, $4, $4)",
              values: [id, inv, record(id), now()],
            });
            for (const phase of ["dispatched", "settled"]) {
              await client.query({
                name: "advance",
                text: "UPDATE tool_actions SET phase = $2, updated_at = $3 WHERE id = $1",
                values: [id, phase, now()],
              });
            }
          }
          await client.query({
            name: "close",
            text: "UPDATE invocations SET state = 'succeeded', updated_at = $2 WHERE id = $1",
            values: [inv, now()],
          });
        }
      }),
    close: async () => {
      await client.end();
      await place.drop();
    },
  };
}

/** Runs the peers suite and prints its table. */
export async function runPeersBench(argv: readonly string[] = []): Promise<void> {
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const blocks = Number(option("blocks") ?? (quickMode(argv) ? 3 : 7));
  const perBlock = Number(option("invocations") ?? 20);
  if (!(await pgAvailable())) {
    printNote(`\n!!! PostgreSQL at ${PG_URL} is not reachable: the peers suite is SKIPPED !!!`);
    return;
  }
  const sides = [await raesSide(perBlock, blocks), await dbosSide(perBlock), await rawSide(perBlock)];
  let timed: Awaited<ReturnType<typeof rotate>>;
  try {
    timed = await rotate(
      sides.map((side, k) => async () => {
        const block = await side.block();
        log(`${side.name}: ${fmt(block.ms / block.units, 2)} ms/invocation (side ${k})`);
        return block;
      }),
      { blocks, warmup: 1 },
    );
  } finally {
    for (const side of sides) await side.close();
  }
  const perInvocation = timed.map((blocks) => median(blocks.map((b) => b.ms / b.units)));
  const cpu = timed.map((blocks) => median(blocks.map((b) => (b.cpuMs ?? Number.NaN) / b.units)));
  const [raes = Number.NaN, dbos = Number.NaN, raw = Number.NaN] = perInvocation;
  // Per block pair: the ratio of the blocks taken side by side, then the median of those.
  const paired = (k: number) =>
    median((timed[0] ?? []).map((b, i) => (timed[k]?.[i]?.ms ?? Number.NaN) / b.ms));
  printTable(
    `peers: one invocation of ${ACTIONS} tool actions × ${STEPS} durable steps on the same PostgreSQL, ` +
      `${blocks} blocks of ${perBlock} invocations per side taken in turn after one warm-up block each (median block)`,
    [
      "side",
      "ms/invocation",
      "invocations/s",
      "process CPU ms/invocation (all sides' background work included)",
      "raes-ts throughput ÷ side",
      "paired",
    ],
    sides.map((side, k) => [
      side.name,
      fmt(perInvocation[k] ?? Number.NaN, 2),
      fmt(1000 / (perInvocation[k] ?? Number.NaN), 1),
      fmt(cpu[k] ?? Number.NaN, 2),
      k === 0 ? "1.00" : fmt((perInvocation[k] ?? Number.NaN) / raes, 2),
      k === 0 ? "" : fmt(paired(k), 2),
    ]),
  );
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  printNote(
    `raes-ts ÷ DBOS: ${fmt(dbos / raes, 2)}× (goal ≥ 2.5, ${verdict(dbos / raes >= 2.5)}); ` +
      `raes-ts ÷ raw pg: ${fmt(raw / raes, 2)} (goal ≥ 0.6, ${verdict(raw / raes >= 0.6)}); ` +
      `load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" / ")}.\n` +
      "raes-ts's invocation also writes its history events, scheduler state and lease in those commits; " +
      "DBOS writes its workflow status, inputs and outputs; raw pg writes only the two tables.",
  );
}

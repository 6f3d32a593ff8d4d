/**
 * `npm run bench -- participants`: many participants. (1) Load + validate + compile of a generated
 * scenario of 10 000 participants (bench/shared/scenario.ts), beside its floor (yaml parse of the
 * same text). (2) The cost of one step at 10², 10³ and 10⁴ due participants: the example policy's
 * participant cloned n times (test/helpers/example.ts), a no-op harness, the memory store, so what is
 * timed is the scheduling and bookkeeping around each due participant; beside it its floor, n awaited
 * no-op harness calls. Cost per due participant stays flat when scheduling is linear. (3) The memory
 * high-water mark (max RSS) after each size. `--quick` stops at 10³ participants and 2 000 agents.
 */
import { LineCounter, parseDocument } from "yaml";
import { compileScenario } from "../../src/compiler/index.js";
import { RuntimeManager } from "../../src/index.js";
import { hasErrors, loadScenario } from "../../src/sdl/index.js";
import { modelWithParticipants } from "../../test/helpers/example.js";
import {
  alternate,
  type BlockTime,
  fmt,
  generateScenario,
  manifestWithoutClaim,
  noopResult,
  noopRuntime,
  printNote,
  printTable,
  quickMode,
} from "../shared/index.js";

const UNLIMITED = {
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxAliases: 10_000,
  maxNodes: Number.MAX_SAFE_INTEGER,
  maxTokens: Number.MAX_SAFE_INTEGER,
};
const log = (message: string) => process.stderr.write(`[participants bench] ${message}\n`);
const maxRssMiB = () => process.resourceUsage().maxRSS / 1024;

function compiled(text: string): number {
  const { scenario, diagnostics } = loadScenario(text, { source: "text", limits: UNLIMITED });
  if (scenario === undefined || hasErrors(diagnostics))
    throw new Error("the generated scenario does not load");
  return Object.keys(compileScenario(scenario).participants).length;
}

async function compileRow(agents: number, blocks: number): Promise<string[]> {
  const text = generateScenario(agents);
  let participants = 0;
  const time = (work: () => void) => async (): Promise<BlockTime> => {
    const start = performance.now();
    work();
    return { ms: performance.now() - start, units: 1 };
  };
  const run = await alternate(
    time(() => {
      participants = compiled(text);
    }),
    time(() => parseDocument(text, { lineCounter: new LineCounter() })),
    { blocks, warmup: 0 },
  );
  if (participants !== agents) throw new Error(`compiled ${participants} participants, expected ${agents}`);
  log(`compile ${agents}: ${run.real.map((b) => fmt(b.ms, 0)).join(" ")} ms`);
  return [
    fmt(agents, 0),
    fmt(text.length / 1024 / 1024, 1),
    `${fmt(run.realMs / 1000, 2)} ${run.realMs < 10_000 ? "met" : "MISSED"}`,
    fmt(run.floorMs / 1000, 2),
    fmt(run.realMs / run.floorMs, 2),
    fmt(maxRssMiB(), 0),
  ];
}

function manifestFor(participants: number): Record<string, unknown> {
  const manifest = manifestWithoutClaim() as { participant_runtime: Record<string, unknown> };
  manifest.participant_runtime.max_autonomous_participants = participants;
  manifest.participant_runtime.max_autonomous_in_flight = participants;
  return manifest;
}

/** Steps of one manager with `n` participants due every step, alternating with the floor's blocks. */
async function stepRow(n: number, blocks: number): Promise<string[] & { perParticipantUs: number }> {
  const openStart = performance.now();
  const manager = await RuntimeManager.open({
    model: modelWithParticipants(n, blocks + 10),
    manifest: manifestFor(n),
    runtime: noopRuntime(),
  });
  const openMs = performance.now() - openStart;
  try {
    const request = (await manager.history()).find((e) => e.event_type === "action_attempted");
    if (!request) throw new Error("nothing ran at open");
    const step = async (): Promise<BlockTime> => {
      const start = performance.now();
      const summary = await manager.step(1);
      if (summary.invocations.length !== n)
        throw new Error(`${summary.invocations.length} due, expected ${n}`);
      return { ms: performance.now() - start, units: n };
    };
    const fake = { participantAddress: request.participant_address } as Parameters<typeof noopResult>[0];
    const floor = async (): Promise<BlockTime> => {
      const start = performance.now();
      await Promise.all(Array.from({ length: n }, async () => noopResult(fake)));
      return { ms: performance.now() - start, units: n };
    };
    const run = await alternate(step, floor, { blocks, warmup: 1 });
    const perParticipantUs = run.realMs * 1000;
    log(`${n} due: steps ${run.real.map((b) => fmt(b.ms, 0)).join(" ")} ms`);
    const row = [
      fmt(n, 0),
      fmt(openMs, 0),
      fmt(run.realMs * n, 1),
      fmt(perParticipantUs, 1),
      fmt(run.floorMs * 1000, 2),
      fmt(maxRssMiB(), 0),
    ];
    return Object.assign(row, { perParticipantUs });
  } finally {
    await manager.close();
  }
}

/** Runs the participants suite and prints its tables. */
export async function runParticipantsBench(argv: readonly string[] = []): Promise<void> {
  const quick = quickMode(argv);
  const sizes = quick ? [100, 1_000] : [100, 1_000, 10_000];
  const steps: (string[] & { perParticipantUs: number })[] = [];
  for (const n of sizes) steps.push(await stepRow(n, quick ? 3 : 5));
  const base = steps[0]?.perParticipantUs ?? 1;
  printTable(
    "participants / step: one step with n participants due (no-op harness, memory store), median of alternating blocks after one warm-up",
    ["due", "open ms", "step ms", "µs per due participant", "floor µs", "max RSS MiB", "growth vs 10²"],
    steps.map((row) => [...row, fmt(row.perParticipantUs / base, 2)]),
  );
  const compile = [await compileRow(quick ? 2_000 : 10_000, quick ? 2 : 3)];
  printTable(
    "participants / compile: load + validate + compile of the generated scenario (goal < 10 s at 10 000), median of alternating blocks",
    ["agents", "MiB", "compile s", "yaml parse s", "compile/yaml", "max RSS MiB"],
    compile,
  );
  printNote(
    "floor (step) = n awaited calls of the same no-op harness; max RSS = the process's high-water mark so far.",
  );
}

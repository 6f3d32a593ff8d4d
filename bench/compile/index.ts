/**
 * `npm run bench -- compile [--quick]`: load + validate + compile time of the example scenario and of
 * generated scenarios (1 000 agents × 20 actions × 5 affordances, then 4× and 8×). Every case is compared
 * with a floor measured in the same run, in alternating blocks: parsing the same text with the `yaml`
 * package alone, which raes-ts cannot go below. `--quick` starts the sizes at 250 agents.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { compileScenario } from "../../src/compiler/index.js";
import { hasErrors, loadScenario } from "../../src/sdl/index.js";
import {
  alternate,
  alternationOf,
  asFloorRow,
  type Block,
  type BlockTime,
  callsBlock,
  type FloorRow,
  fmt,
  GENERATED_ACTIONS,
  GENERATED_AFFORDANCES,
  generateScenario,
  median,
  printFloorTable,
  printTable,
} from "../shared/index.js";

const EXAMPLE = readFileSync(
  join(import.meta.dirname, "..", "..", "examples", "enterprise-participant-evidence-loop.sdl.yaml"),
  "utf8",
);
const UNLIMITED = {
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxAliases: 10_000,
  maxNodes: Number.MAX_SAFE_INTEGER,
  maxTokens: Number.MAX_SAFE_INTEGER,
};

function loadAndCompile(text: string): number {
  const { scenario, diagnostics } = loadScenario(text, { source: "text", limits: UNLIMITED });
  if (scenario === undefined || hasErrors(diagnostics))
    throw new Error("bench scenario does not load cleanly");
  return compileScenario(scenario).affordanceBindings.length;
}

const yamlParse = (text: string) => () => parseDocument(text, { lineCounter: new LineCounter() });

/** The example's cases, each in blocks alternating with the yaml floor of the same text. */
async function exampleRows(blocks: number): Promise<FloorRow[]> {
  const { scenario } = loadScenario(EXAMPLE, { source: "text" });
  if (scenario === undefined) throw new Error("the example does not load");
  const floor = callsBlock(yamlParse(EXAMPLE), 5);
  const cases: [string, Block][] = [
    ["example: load + validate", callsBlock(() => loadScenario(EXAMPLE, { source: "text" }), 5)],
    ["example: compile only", callsBlock(() => compileScenario(scenario), 500)],
    ["example: load + validate + compile", callsBlock(() => loadAndCompile(EXAMPLE), 5)],
  ];
  const rows: FloorRow[] = [];
  for (const [label, block] of cases) {
    rows.push(asFloorRow(label, "yaml parse", await alternate(block, floor, { blocks, warmup: 3 })));
  }
  return rows;
}

/**
 * The growth figure: every size `reps` times, sizes interleaved (1×, 4×, 8×, 1×, 4×, …), each run
 * next to its yaml floor; the 1× baseline is warmed first like every other size, so the ratios
 * compare warm to warm.
 */
async function growth(baseAgents: number, reps: number): Promise<{ rows: FloorRow[]; table: string[][] }> {
  const scales = [1, 4, 8];
  const texts = new Map(scales.map((scale) => [scale, generateScenario(baseAgents * scale)]));
  const real = new Map(scales.map((scale) => [scale, [] as BlockTime[]]));
  const floors = new Map(scales.map((scale) => [scale, [] as BlockTime[]]));
  const bindings = new Map<number, number>();
  // Untimed: one run of the baseline and its floor, so the first timed size is not charged for compilation.
  await callsBlock(() => loadAndCompile(texts.get(1) ?? ""), 1)();
  await callsBlock(yamlParse(texts.get(1) ?? ""), 1)();
  for (let r = 0; r < reps; r += 1) {
    for (const scale of scales) {
      const text = texts.get(scale) ?? "";
      const run = await alternate(
        callsBlock(() => bindings.set(scale, loadAndCompile(text)), 1),
        callsBlock(yamlParse(text), 1),
        { blocks: 1, warmup: 0 },
      );
      real.get(scale)?.push(...run.real);
      floors.get(scale)?.push(...run.floor);
    }
  }
  const ms = (scale: number) => median((real.get(scale) ?? []).map((b) => b.ms));
  const rows = scales.map((scale) => {
    const alternation = alternationOf(real.get(scale) ?? [], floors.get(scale) ?? []);
    const label = `${baseAgents * scale} agents × ${GENERATED_ACTIONS} actions × ${GENERATED_AFFORDANCES} affordances`;
    const kib = fmt((texts.get(scale)?.length ?? 0) / 1024, 0);
    return asFloorRow(label, `yaml parse ${scale}×`, alternation, [kib, fmt(bindings.get(scale) ?? 0, 0)]);
  });
  const table = scales.map((scale) => {
    const agents = baseAgents * scale;
    const timeRatio = ms(scale) / ms(1);
    return [
      `${scale}×`,
      fmt(agents, 0),
      fmt(ms(scale), 1),
      fmt((ms(scale) / agents) * 1000, 1),
      fmt(scale, 0),
      fmt(timeRatio, 2),
      fmt(timeRatio / scale, 2),
    ];
  });
  return { rows, table };
}

/** Runs the compile bench and prints its tables. */
export async function runCompileBench(argv: readonly string[] = []): Promise<void> {
  const quick = argv.includes("--quick");
  const reps = quick ? 3 : 5;
  const baseAgents = quick ? 250 : 1000;
  const rows = await exampleRows(quick ? 7 : 15);
  const grown = await growth(baseAgents, reps);
  printFloorTable(
    "compile: load + validate + compile, median ms per scenario over blocks alternating with the floor (yaml parseDocument of the same text)",
    [...rows, ...grown.rows],
    ["KiB", "bindings"],
  );
  printTable(
    `compile: growth of the generated scenario, median of ${reps} runs per size, sizes interleaved after a warm-up (linear growth keeps time/size near 1.00)`,
    ["size", "agents", "ms/scenario", "ms per 1 000 agents", "size ×", "time ×", "time/size"],
    grown.table,
  );
}

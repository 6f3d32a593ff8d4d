/**
 * `npm run bench -- compile [--quick]`: load + validate + compile time of the example scenario and of
 * generated scenarios (1 000 agents × 20 actions × 5 affordances, then 2×, 4×, 8×). Every case is compared
 * with a floor measured in the same run: parsing the same text with the `yaml` package alone, which
 * raes-ts cannot go below. `--quick` stops at 2×.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { compileScenario } from "../src/compiler/index.js";
import { hasErrors, loadScenario } from "../src/sdl/index.js";
import { GENERATED_ACTIONS, GENERATED_AFFORDANCES, generateScenario } from "./generate-scenario.js";
import { type FloorRow, fmt, type Measurement, measure, printFloorTable, printTable } from "./lib.js";

const EXAMPLE = readFileSync(
  join(import.meta.dirname, "..", "examples", "enterprise-participant-evidence-loop.sdl.yaml"),
  "utf8",
);
const UNLIMITED = {
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxAliases: 10_000,
  maxNodes: Number.MAX_SAFE_INTEGER,
};

function loadAndCompile(text: string): number {
  const { scenario, diagnostics } = loadScenario(text, { source: "text", limits: UNLIMITED });
  if (scenario === undefined || hasErrors(diagnostics))
    throw new Error("bench scenario does not load cleanly");
  return compileScenario(scenario).affordanceBindings.length;
}

function yamlFloor(
  label: string,
  text: string,
  runs: { minMs: number; minRuns: number; warmup: number },
): Measurement {
  return measure(label, () => parseDocument(text, { lineCounter: new LineCounter() }), runs);
}

/** Runs the compile bench and prints its tables. */
export async function runCompileBench(argv: readonly string[] = []): Promise<void> {
  const quick = argv.includes("--quick");
  const rows: FloorRow[] = [];
  const exampleRuns = { minMs: 1000, minRuns: 30, warmup: 30 };
  const exampleFloor = yamlFloor("yaml parse", EXAMPLE, exampleRuns);
  const exampleLoad = measure(
    "example: load + validate",
    () => loadScenario(EXAMPLE, { source: "text" }),
    exampleRuns,
  );
  const { scenario } = loadScenario(EXAMPLE, { source: "text" });
  if (scenario === undefined) throw new Error("the example does not load");
  const compileOnly = measure("example: compile only", () => compileScenario(scenario), exampleRuns);
  const exampleAll = measure(
    "example: load + validate + compile",
    () => loadAndCompile(EXAMPLE),
    exampleRuns,
  );
  rows.push({ measurement: exampleLoad, floor: exampleFloor });
  rows.push({ measurement: compileOnly, floor: exampleFloor });
  rows.push({ measurement: exampleAll, floor: exampleFloor });

  const scales = quick ? [1, 2] : [1, 2, 4, 8];
  const growth: string[][] = [];
  let base: { ms: number; agents: number } | undefined;
  for (const scale of scales) {
    const agents = 1000 * scale;
    const text = generateScenario(agents);
    // The largest cases take seconds each: time them once; the 1× case warms the code up for all of them.
    const runs = { minMs: 0, minRuns: scale >= 4 ? 1 : 2, warmup: scale === 1 ? 1 : 0 };
    const label = `${agents} agents × ${GENERATED_ACTIONS} actions × ${GENERATED_AFFORDANCES} affordances`;
    const floor = yamlFloor(`yaml parse ${scale}×`, text, runs);
    let bindings = 0;
    const measured = measure(
      label,
      () => {
        bindings = loadAndCompile(text);
      },
      runs,
    );
    rows.push({
      measurement: measured,
      floor,
      extra: [fmt(text.length / 1024, 0), fmt(bindings, 0)],
    });
    base ??= { ms: measured.medianMs, agents };
    const sizeRatio = agents / base.agents;
    const timeRatio = measured.medianMs / base.ms;
    growth.push([
      `${scale}×`,
      fmt(agents, 0),
      fmt(measured.medianMs, 1),
      fmt((measured.medianMs / agents) * 1000, 1),
      fmt(sizeRatio, 0),
      fmt(timeRatio, 2),
      fmt(timeRatio / sizeRatio, 2),
    ]);
  }
  printFloorTable(
    "compile: load + validate + compile, median ms per scenario (floor: yaml parseDocument of the same text)",
    rows,
    ["KiB", "bindings"],
  );
  printTable(
    "compile: growth of the generated scenario (linear growth keeps time/size near 1.00)",
    ["size", "agents", "ms/scenario", "ms per 1 000 agents", "size ×", "time ×", "time/size"],
    growth,
  );
}

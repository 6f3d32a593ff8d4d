import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileScenario, type RuntimeModel } from "../../../src/compiler/index.js";
import { loadScenario } from "../../../src/index.js";
import { ROOT } from "../../helpers/example.js";

/** One line of a RAES v2 trace (raes_v2_trace.py), reduced to what a run must reproduce. */
export interface TraceLine {
  readonly step: number;
  readonly tick: number;
  readonly segment: number;
  readonly action_instance_id: string;
  readonly candidate_id: string;
  readonly action_contract_address: string;
  readonly timing_disposition: string;
  readonly burst_position: number;
  readonly predecessor_attempt_id: string | null;
  readonly result: { readonly status: string; readonly failure_class: string | null };
  readonly after: Readonly<Record<string, unknown>>;
}

/** The fixture directory of recorded v2 traces. */
export const V2_FIXTURES = join(ROOT, "test", "fixtures", "conformance", "v2");

/** The lines of a recorded trace. */
export function readTrace(path: string): TraceLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as TraceLine);
}

/** The fields of a trace line a reproduction is compared on, in a stable order. */
export function comparable(line: TraceLine): unknown {
  return {
    step: line.step,
    tick: line.tick,
    segment: line.segment,
    action_instance_id: line.action_instance_id,
    candidate_id: line.candidate_id,
    action_contract_address: line.action_contract_address,
    timing_disposition: line.timing_disposition,
    burst_position: line.burst_position,
    predecessor_attempt_id: line.predecessor_attempt_id,
    result: { status: line.result.status, failure_class: line.result.failure_class },
    after: line.after,
  };
}

/** Compiles a scenario file that must load without errors. */
export function compileFile(path: string): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(path);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!scenario || errors.length > 0) throw new Error(`${path} does not load: ${JSON.stringify(errors)}`);
  return compileScenario(scenario);
}

/** The v2 example scenario, compiled. */
export const V2_EXAMPLE = join(ROOT, "examples", "enterprise-participant-activity-v2.sdl.yaml");
/** The v2 example manifest. */
export const V2_MANIFEST = join(ROOT, "examples", "harness-backend-v2.manifest.json");

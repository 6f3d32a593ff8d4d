/**
 * `npm run bench -- v3`: the v3 scheduler's cost per attempt against v2's on the same scenario.
 *
 * The v3 example is the v2 example plus its `resource_budget` (same candidates, windows and draws), so
 * both runs make the same attempts. Each block opens a RuntimeManager on a memory store, runs 60
 * advances (about 36 attempts: every v2 step, plus under v3 the reservation of the whole vector, the
 * measurement check and the commit of the measured vector with the invocation), and is timed from the
 * first advance to the last. v2 and v3 blocks alternate so both see the same load. Bound: v3 ≤ 1.5× v2.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileScenario, type RuntimeModel } from "../../src/compiler/index.js";
import {
  loadScenario,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { alternate, fmt, printTable } from "../shared/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const STEPS = 60;

function model(file: string): RuntimeModel {
  const { scenario } = loadScenario(join(ROOT, "examples", file));
  if (!scenario) throw new Error(`${file} does not load`);
  return compileScenario(scenario);
}

/** Every third call fails retryably; under v3 each requirement is measured at its reservation. */
class BenchRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  calls = 0;
  /** Claims the composition the example manifests declare; this runtime makes no tool calls. */
  attachInvocationToolActions(): void {}
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.calls += 1;
    const fail = this.calls % 3 === 0;
    const result = this.nativeExecution(
      request,
      snapshot,
      context.episodeId,
      fail ? { status: "failed", failureClass: "target_unavailable" } : { status: "succeeded" },
    );
    const requirements = request.resourceMeasurementRequirements;
    if (!requirements) return result;
    return {
      ...result,
      resourceMeasurements: requirements.map((r) => ({
        budgetStateRef: r.budgetStateRef,
        operationId: request.actionInstanceId,
        executionGeneration: request.executionGeneration,
        resourceKind: r.resourceKind,
        unit: r.unit,
        meterProfileRef: r.meterProfileRef,
        measured: r.reserved,
        evidenceRefs: [`evidence:${request.actionInstanceId}`],
      })),
    };
  }
}

function block(m: RuntimeModel, manifest: unknown) {
  return async () => {
    const runtime = new BenchRuntime();
    const manager = await RuntimeManager.open({
      model: m,
      manifest,
      runtime,
      stochasticControls: [
        { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
      ],
    });
    const before = runtime.calls;
    const start = performance.now();
    await manager.step(STEPS);
    const ms = performance.now() - start;
    const units = runtime.calls - before;
    await manager.close();
    return { ms, units };
  };
}

/** Runs the v3 bench and prints its table. */
export async function runV3Bench(argv: readonly string[] = []): Promise<void> {
  const quick = argv.includes("--quick");
  const rounds = quick ? 5 : 41;
  const manifest = (file: string) =>
    JSON.parse(readFileSync(join(ROOT, "examples", file), "utf8")) as unknown;
  const v3 = block(
    model("enterprise-participant-resource-v3.sdl.yaml"),
    manifest("harness-backend-v3.manifest.json"),
  );
  const v2 = block(
    model("enterprise-participant-activity-v2.sdl.yaml"),
    manifest("harness-backend-v2.manifest.json"),
  );
  const result = await alternate(v3, v2, { blocks: rounds, warmup: 6 });
  printTable(
    `v3 scheduling cost per attempt vs v2, same scenario, memory store (median of ${rounds} alternating blocks of ${STEPS} advances)`,
    ["scheduler", "µs per attempt", "ratio to v2", "bound"],
    [
      ["v2", fmt(result.floorMs * 1000), "1.00", ""],
      ["v3", fmt(result.realMs * 1000), fmt(result.ratio), result.ratio <= 1.5 ? "≤ 1.5 ok" : "> 1.5 FAIL"],
    ],
  );
}

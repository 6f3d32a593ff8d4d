import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  compileScenario,
  getParticipantStatusView,
  loadScenario,
  type ModelActionContext,
  openControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
  type RuntimeModel,
} from "../../../src/index.js";
import { readConsoleState } from "../../../src/serve/index.js";
import { EXAMPLE_SCENARIO, exampleManifest, ROOT } from "../../helpers/example.js";
import { VirtualTimers } from "../../helpers/virtual-timers.js";
import { RaesNativeRuntime } from "../raes-runtime-fixtures.js";

// RAES's answers, recorded by tools/record-raes-views.py: its wall driver's rates, a real_time run advanced
// cadence tick by cadence tick, and the service state its driver writes on pacing loss.
const FIXTURES = join(ROOT, "test", "fixtures", "raes-views");
const RAES = JSON.parse(readFileSync(join(FIXTURES, "pacing.json"), "utf8")) as {
  readonly rates: Readonly<
    Record<string, readonly { clock_address: string; seconds_per_tick: [number, number] }[]>
  >;
  readonly real_time_run: {
    readonly attempts: readonly {
      observation_point: string;
      action_instance_id: string;
      episode_id: string;
    }[];
    readonly scheduler_states: Readonly<Record<string, Record<string, unknown>>>;
  };
  readonly service_after_pacing_loss: Readonly<Record<string, unknown>>;
};
const POLICY = "participant.autonomous-execution.participant-behavior";
const CLOCK = "time.clock.scenario-clock";
const P = "participant.behavior.participant-agent";

function model(name: string): RuntimeModel {
  const path = name === "pacing-stepped" ? EXAMPLE_SCENARIO : join(FIXTURES, `${name}.sdl.yaml`);
  const { scenario, diagnostics } = loadScenario(path);
  assert.ok(scenario, JSON.stringify(diagnostics.filter((d) => d.severity === "error")));
  return compileScenario(scenario);
}

/** RAES's native test runtime whose invocation of ordinal `slow` takes `ms` of virtual time. */
class SlowRuntime extends RaesNativeRuntime {
  constructor(
    private readonly timers: VirtualTimers,
    private readonly slow: number,
    private readonly ms: number,
  ) {
    super();
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: ModelActionContext,
  ): Promise<ParticipantActionResult> {
    if (request.ordinal === this.slow) this.timers.advance(this.ms);
    return super.modelAction(request, snapshot, context);
  }
}

async function open(name: string, runtime = new RaesNativeRuntime(), timers = new VirtualTimers()) {
  return RuntimeManager.open({ model: model(name), manifest: exampleManifest(), runtime, timers });
}

describe("real time paced by the SDL clock, as RAES's wall driver paces it", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  before(() => trace.setGlobalTracerProvider(provider));
  after(async () => {
    trace.disable();
    await provider.shutdown();
  });

  for (const [name, rates] of Object.entries(RAES.rates)) {
    it(`${name}: the step period is RAES's seconds per tick (tick period ÷ pacing_ratio), or none`, async () => {
      const manager = await open(name);
      const [rate] = rates;
      if (!rate) {
        await assert.rejects(manager.run({ steps: 1 }), { code: "runtime.pacing-undeclared" });
        // A period given by hand still runs a clock the SDL does not pace.
        assert.equal((await manager.run({ steps: 0, tickMs: 5 })).pacing, "tick_ms");
      } else {
        const summary = await manager.run({ steps: 0 });
        assert.equal(summary.pacing, "clock");
        assert.equal(summary.tickMs, (1000 * rate.seconds_per_tick[0]) / rate.seconds_per_tick[1]);
      }
      await manager.close();
    });
  }

  it("a real_time clock is stepped one tick at a time and makes exactly RAES's attempts and scheduler state", async () => {
    const runtime = new RaesNativeRuntime();
    const manager = await open("pacing-real-time", runtime);
    const summary = await manager.run({ steps: 40 });
    assert.equal(summary.ended, "schedulers_finished");
    assert.deepEqual(
      runtime.requests.map((r) => [r.observationPoint, r.actionInstanceId, r.episodeId]),
      RAES.real_time_run.attempts.map((a) => [a.observation_point, a.action_instance_id, a.episode_id]),
    );
    const ours = await manager.schedulerStates();
    assert.deepEqual(ours, RAES.real_time_run.scheduler_states);
    await manager.close();
  });

  it("a step later than the drift bound marks the services degraded with RAES's evidence ref, in the view and the spans", async () => {
    exporter.reset();
    const timers = new VirtualTimers();
    // 50 ms per tick, drift bound 2 ticks (100 ms); the attempt at tick 10 takes 400 ms.
    const manager = await open("pacing-drift-bound", new SlowRuntime(timers, 1, 400), timers);
    const summary = await manager.run({ steps: 25 });
    assert.equal(summary.boundMs, 100);
    assert.ok(summary.pacingLostSteps >= 1, JSON.stringify(summary));
    const status = await manager.getParticipantStatusView("participant.behavior.participant-agent");
    // RAES's ref has RAES's service generation (0 at start); raes-ts's has the clock's (1 at start).
    const raesRef = (RAES.service_after_pacing_loss.pacing_deviation_refs as string[])[0] as string;
    assert.equal(RAES.service_after_pacing_loss.health, "degraded");
    const [service] = status?.execution_services ?? [];
    assert.equal(service?.policy_address, POLICY);
    assert.equal(service?.health, "degraded");
    assert.deepEqual(service?.pacing_deviation_refs, [raesRef.replace(/generation-0$/, "generation-1")]);
    assert.equal(raesRef, `evidence:${POLICY}:pacing-loss:${CLOCK}:generation-0`);
    // The readback says the same. RAES also pauses the service (its driver is gone); raes-ts's paced
    // run is alive and catches up, so the service keeps running (docs/raes-mapping.md).
    const readback = await manager.participantExecutionState("participant.behavior.participant-agent");
    assert.equal(readback.health, "degraded");
    assert.deepEqual(readback.pacing_deviation_refs, service?.pacing_deviation_refs);
    assert.equal(RAES.service_after_pacing_loss.observed_lifecycle, "paused");
    assert.deepEqual([readback.observed_lifecycle, readback.accepting_new_work], ["running", true]);
    const chains = {
      observe: () => undefined,
      participant: () => ({ state: "unchecked" }),
      decisions: () => ({ state: "unchecked" }),
      store: () => ({ state: "unchecked" }),
    };
    const console = await readConsoleState(manager.store, {
      storeLabel: "memory:",
      operator: "alice",
      chains: chains as unknown as Parameters<typeof readConsoleState>[1]["chains"],
    });
    assert.equal(console.participants.items[0]?.service?.health, "degraded");
    const spans = exporter.getFinishedSpans();
    const loss = spans.filter((s) => s.name === `pacing_loss ${CLOCK}`);
    assert.ok(loss.length >= 1);
    assert.equal(loss[0]?.attributes["raes.service.health"], "degraded");
    assert.equal(loss[0]?.attributes["raes.pacing.bound_ms"], 100);
    // The invocations after the loss carry the degraded service; the ones before do not.
    const invocations = spans.filter((s) => s.name.startsWith("invoke_agent "));
    assert.deepEqual(
      invocations.map((s) => s.attributes["raes.service.health"] ?? "healthy"),
      ["healthy", "healthy", "degraded"],
    );
    await manager.close();
  });

  it("a lost pacing is stored: another process's status view reads the service degraded, with RAES's ref", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-pacing-"));
    try {
      const url = `sqlite:${join(dir, "cp.db")}`;
      const timers = new VirtualTimers();
      const runtime = new SlowRuntime(timers, 1, 400);
      const first = await RuntimeManager.open({
        model: model("pacing-drift-bound"),
        manifest: exampleManifest(),
        runtime,
        timers,
        store: url,
      });
      // Past the slow attempt, before the schedule's last attempts.
      await first.run({ steps: 12 });
      await first.close();
      const store = await openControlPlaneStore(url, { readOnly: true });
      const stored = await store.listPacingDeviations(P);
      assert.equal(stored.length, 1);
      assert.equal(stored[0]?.ref, `evidence:${POLICY}:pacing-loss:${CLOCK}:generation-1`);
      assert.equal(stored[0]?.boundMs, 100);
      assert.ok((stored[0]?.latenessMs ?? 0) > 100);
      const status = await getParticipantStatusView({ store, model: model("pacing-drift-bound") }, P);
      assert.equal(status?.execution_services[0]?.health, "degraded");
      assert.deepEqual(status?.execution_services[0]?.pacing_deviation_refs, [stored[0]?.ref]);
      await store.close();
      // A later process marks its spans degraded from the first invocation on.
      exporter.reset();
      const second = await RuntimeManager.open({
        model: model("pacing-drift-bound"),
        manifest: exampleManifest(),
        runtime: new RaesNativeRuntime(),
        store: url,
      });
      await second.step(12);
      const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith("invoke_agent "));
      assert.ok(spans.length >= 1);
      assert.ok(spans.every((s) => s.attributes["raes.service.health"] === "degraded"));
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a run that keeps its pacing leaves the services healthy", async () => {
    const timers = new VirtualTimers();
    const manager = await open("pacing-drift-bound", new SlowRuntime(timers, 1, 60), timers);
    const summary = await manager.run({ steps: 25 });
    assert.equal(summary.pacingLostSteps, 0);
    const status = await manager.getParticipantStatusView("participant.behavior.participant-agent");
    assert.equal(status?.execution_services[0]?.health, "healthy");
    await manager.close();
  });
});

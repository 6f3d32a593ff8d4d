import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compileScenario, loadScenario, RuntimeManager } from "../../../src/index.js";
import { exampleManifest, exampleModel, ROOT } from "../../helpers/example.js";
import { RaesNativeRuntime } from "../raes-runtime-fixtures.js";

// RAES's answers to jump_time, recorded by tools/record-raes-views.py.
const FIXTURES = join(ROOT, "test", "fixtures", "raes-views");
interface RaesJump {
  readonly label: string;
  readonly tick: number;
  readonly success: boolean;
  readonly diagnostics: readonly { code: string }[];
  readonly clock: { readonly segment: number; readonly tick: number };
  readonly scheduler_states: Readonly<Record<string, Record<string, unknown>>>;
}
const RAES = JSON.parse(readFileSync(join(FIXTURES, "jump.json"), "utf8")) as {
  readonly unsupported: { readonly success: boolean; readonly diagnostics: readonly { code: string }[] };
  readonly may_jump: readonly RaesJump[];
};
const CLOCK = "time.clock.scenario-clock";

function jumpModel() {
  const { scenario } = loadScenario(join(FIXTURES, "jump.sdl.yaml"));
  assert.ok(scenario);
  return compileScenario(scenario);
}

describe("clock jumps with RAES's semantics (ADR-090)", () => {
  it("a clock without supports_jump refuses a jump with RAES's code, and nothing changes", async () => {
    const runtime = new RaesNativeRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
    });
    assert.equal(RAES.unsupported.success, false);
    await assert.rejects(manager.jumpClock(CLOCK, 10), { code: RAES.unsupported.diagnostics[0]?.code });
    assert.deepEqual(await manager.store.getClock(CLOCK).then((c) => [c?.segment, c?.tick]), [0, 0]);
    assert.equal(runtime.requests.length, 1);
    await manager.close();
  });

  it("a may_jump clock answers every jump as RAES does, refused before any write or harness call", async () => {
    const runtime = new RaesNativeRuntime();
    const manager = await RuntimeManager.open({ model: jumpModel(), manifest: exampleManifest(), runtime });
    const before = await manager.schedulerStates();
    for (const raes of RAES.may_jump) {
      assert.equal(raes.success, false, raes.label);
      await assert.rejects(
        manager.jumpClock(CLOCK, raes.tick),
        { code: raes.diagnostics[0]?.code },
        raes.label,
      );
      const clock = await manager.store.getClock(CLOCK);
      assert.deepEqual([clock?.segment, clock?.tick], [raes.clock.segment, raes.clock.tick], raes.label);
      assert.deepEqual(await manager.schedulerStates(), raes.scheduler_states, raes.label);
    }
    assert.deepEqual(await manager.schedulerStates(), before);
    // RAES's native runtime ran the attempt its failed jump made due; raes-ts calls no harness for a refusal.
    assert.equal(runtime.requests.length, 1);
    await manager.step(1);
    assert.equal(runtime.requests.length, 2, "the clock goes on from where it stood");
    await manager.close();
  });

  it("a bad tick or a clock no policy runs on is refused with a code", async () => {
    const manager = await RuntimeManager.open({
      model: jumpModel(),
      manifest: exampleManifest(),
      runtime: new RaesNativeRuntime(),
    });
    await assert.rejects(manager.jumpClock(CLOCK, -1), { code: "runtime.clock-tick-invalid" });
    await assert.rejects(manager.jumpClock(CLOCK, 1.5), { code: "runtime.clock-tick-invalid" });
    await assert.rejects(manager.jumpClock("time.clock.nowhere", 3), { code: "runtime.clock-unknown" });
    await manager.close();
  });
});

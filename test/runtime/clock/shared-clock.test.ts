import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { exampleManifest, modelWithParticipants } from "../../helpers/example.js";
import { RecordingRuntime } from "../harnesses.js";

const STEP_TICKS = 10;

describe("one shared clock, several processes", () => {
  const setup = async (processes: number) => {
    const model = modelWithParticipants(processes * 2, 1_000);
    const manifest = exampleManifest();
    manifest.participant_runtime.max_autonomous_participants = processes * 2;
    const store = new MemoryControlPlaneStore();
    const managers: RuntimeManager[] = [];
    for (let i = 0; i < processes; i += 1) {
      managers.push(
        await RuntimeManager.open({
          model,
          manifest,
          runtime: new RecordingRuntime(),
          store,
          ownerId: `host-${i}`,
          log: () => undefined,
        }),
      );
    }
    const clockAddress = Object.values(model.autonomousPolicies)[0]?.clockAddress ?? "";
    const tick = async () => (await store.getClock(clockAddress))?.tick;
    return { managers, tick };
  };

  it("moves once per step of scenario time when three processes each step, not three times", async () => {
    const { managers, tick } = await setup(3);
    const start = await tick();
    for (let round = 1; round <= 5; round += 1) {
      for (const m of managers) await m.step();
      assert.equal(await tick(), (start ?? 0) + round * STEP_TICKS, `round ${round}`);
    }
    for (const m of managers) await m.close();
  });

  it("a process that steps ahead takes the clock with it; one behind runs the ticks it passed without pushing it, then steps on from it", async () => {
    const { managers, tick } = await setup(2);
    const [a, b] = managers as [RuntimeManager, RuntimeManager];
    const start = (await tick()) ?? 0;
    await a.step(3);
    assert.equal(await tick(), start + 3 * STEP_TICKS);
    const behind = await b.step();
    assert.equal(
      await tick(),
      start + 3 * STEP_TICKS,
      "b's first step is behind the clock: it moves nothing",
    );
    assert.ok(behind.invocations.length > 0, "b still runs what is due up to the clock");
    await b.step();
    assert.equal(await tick(), start + 4 * STEP_TICKS, "b, now up to date, moves it one step on");
    await a.close();
    await b.close();
  });

  it("after a reset by one process, every process steps the new segment from its start", async () => {
    const { managers, tick } = await setup(2);
    const [a, b] = managers as [RuntimeManager, RuntimeManager];
    await a.step(2);
    await b.step(2);
    await a.reset();
    await b.step();
    await a.step();
    assert.equal(await tick(), STEP_TICKS, "one step into the new segment");
    await a.close();
    await b.close();
  });
});

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import { exampleManifest, modelWithAttempts, ROOT } from "../../helpers/example.js";
import { RecordingRuntime } from "../harnesses.js";

const point = (segment: number, tick: number) => `time.clock.scenario-clock@segment=${segment},tick=${tick}`;

describe("the cadence's start tick (RAES runs it when the plan is applied)", () => {
  it("runs at open, is never re-run by a reopen of the same store, and the next step runs the next cadence tick", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-cadence-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    try {
      const open = async (runtime: RecordingRuntime) =>
        RuntimeManager.open({ model: modelWithAttempts(10), manifest: exampleManifest(), runtime, store });
      const first = new RecordingRuntime();
      await (await open(first)).close();
      assert.deepEqual(
        first.requests.map((r) => r.observationPoint),
        [point(0, 0)],
      );
      const second = new RecordingRuntime();
      const manager = await open(second);
      assert.equal(second.requests.length, 0, "the reopen ran the start tick again");
      await manager.step(1);
      assert.deepEqual(
        second.requests.map((r) => [r.ordinal, r.observationPoint]),
        [[1, point(0, 10)]],
      );
      await manager.close();
      const third = new RecordingRuntime();
      await (await open(third)).close();
      assert.equal(third.requests.length, 0, "a reopen after a step runs nothing");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a manager opened on a paused clock runs the due tick on resume, once", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(10),
      manifest: exampleManifest(),
      runtime,
    });
    await manager.pause();
    await manager.reset();
    assert.equal(runtime.requests.length, 1, "nothing runs while the clock is paused");
    await manager.resume();
    await manager.resume();
    assert.deepEqual(
      runtime.requests.map((r) => r.observationPoint),
      [point(0, 0), point(1, 0)],
    );
    await manager.step(1);
    assert.equal(runtime.requests.at(-1)?.observationPoint, point(1, 10));
    assert.equal(runtime.requests.length, 3);
    await manager.close();
  });
});

describe("the docs say what open and reset run", () => {
  it("RuntimeManager.open's and reset's TSDoc and the harness guide say they run the attempts due at the start tick, as RAES does", () => {
    const source = readFileSync(join(ROOT, "src", "runtime", "manager", "manager.ts"), "utf8");
    const docOf = (signature: string) => {
      const at = source.indexOf(signature);
      assert.ok(at > 0, signature);
      const comment = source.slice(source.lastIndexOf("/**", at), at);
      return comment.replace(/\s*\n\s*\*\s?/g, " ");
    };
    assert.match(
      docOf("static async open("),
      /runs the attempts due at the clock's current tick before `open` returns, as RAES's start does/,
    );
    assert.match(
      docOf("reset(): Promise<void>"),
      /runs the attempts due at tick 0 of the new segment before it returns, as RAES's reset does/,
    );
    const guide = readFileSync(join(ROOT, "docs", "guide", "harness.md"), "utf8");
    assert.match(guide, /^## What open and reset run$/m);
    assert.match(guide, /`open` runs the attempts due at the clock's current tick before it returns/);
    assert.match(
      guide,
      /`reset\(\)` starts a new clock segment and episode at tick 0 and runs the attempts due at that\s+tick before it returns/,
    );
  });
});

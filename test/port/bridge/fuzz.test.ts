import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { serveToolActionPort } from "../../../src/port/index.js";
import { exampleModel } from "../../helpers/example.js";
import { fullRun, fuzzInputsPerTarget, processFigures, reportProgress } from "../../helpers/fuzz-budget.js";
import { openCore } from "../support/core.js";
import { FRAME_FAMILIES, frameArbitrary } from "../support/fuzz-frames.js";
import { MESSAGE_FAMILIES, messageArbitrary } from "../support/fuzz-messages.js";
import { FuzzTally, socketBatch, workerBatch } from "../support/fuzz-runners.js";
import { watchProcessFaults } from "../support/raw-socket.js";

/** Inputs per bridge: 20 000 in CI, RAES_FUZZ_INPUTS for a long run (see docs/hardening.md). */
const INPUTS = fuzzInputsPerTarget();
const BATCH = 100;
/** RAES_FUZZ_SEED replays a failing run with the seed fast-check printed. */
const SEED = process.env.RAES_FUZZ_SEED === undefined ? {} : { seed: Number(process.env.RAES_FUZZ_SEED) };

/** Runs a property; on failure, names what failed (fast-check keeps it only as the error's cause). */
async function holds<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { numRuns, ...SEED, endOnFailure: process.env.RAES_FUZZ_SHRINK === "0" });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw new Error(`${(error as Error).message.slice(0, 2_000)}\ncause: ${String(cause)}`);
  }
}

/** Generous: about 30 ms per input, so a loaded machine does not cut the long run short. */
const TIMEOUT = Math.max(10 * 60_000, INPUTS * 30);

function figures(tally: FuzzTally, started: number, rssBefore: number, cpuBefore: NodeJS.CpuUsage): string {
  return `${tally.summary()}; ${processFigures(started, rssBefore, cpuBefore)}`;
}

/** A run of CI's size must have drawn every family, 100 000 levels deep included. */
function assertEveryFamily(tally: FuzzTally, families: readonly string[]): void {
  if (!fullRun(tally.inputs)) return;
  const missing = families.filter((family) => !tally.families.has(family));
  assert.deepEqual(missing, [], `families never generated: ${missing.join(", ")}`);
}

describe("fuzz: generated frames against the real bridges crash nothing and get only fixed answers", () => {
  let dir = "";
  let watch: ReturnType<typeof watchProcessFaults>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-fuzz-"));
    watch = watchProcessFaults();
  });
  after(() => {
    watch.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`socket bridge: ${INPUTS} frames over a served port on a real Unix socket`, {
    timeout: TIMEOUT,
  }, async (t) => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "fuzz.sock") });
    const tally = new FuzzTally();
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    try {
      await holds(
        fc.asyncProperty(
          fc.array(frameArbitrary(core.port), { minLength: BATCH, maxLength: BATCH }),
          (frames) =>
            socketBatch(served, frames, tally).then(() =>
              reportProgress(tally.inputs, () => `socket: ${figures(tally, started, rss, cpu)}`),
            ),
        ),
        Math.ceil(INPUTS / BATCH),
      );
    } finally {
      await served.close();
    }
    t.diagnostic(`socket bridge: ${figures(tally, started, rss, cpu)}`);
    assert.ok(tally.inputs >= INPUTS);
    assertEveryFamily(tally, FRAME_FAMILIES);
    assert.deepEqual(watch.faults, [], "no unhandled rejection and no uncaught exception");
  });

  it(`worker bridge: ${INPUTS} messages through real MessageChannels to exposed ports`, {
    timeout: TIMEOUT,
  }, async (t) => {
    const { core } = await openCore(exampleModel());
    const tally = new FuzzTally();
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    await holds(
      fc.asyncProperty(
        fc.array(messageArbitrary(core.port), { minLength: BATCH, maxLength: BATCH }),
        (messages) =>
          workerBatch(core.port, messages, tally).then(() =>
            reportProgress(tally.inputs, () => `worker: ${figures(tally, started, rss, cpu)}`),
          ),
      ),
      Math.ceil(INPUTS / BATCH),
    );
    t.diagnostic(`worker bridge: ${figures(tally, started, rss, cpu)}`);
    assert.ok(tally.inputs >= INPUTS);
    assertEveryFamily(tally, MESSAGE_FAMILIES);
    assert.deepEqual(watch.faults, [], "no unhandled rejection and no uncaught exception");
  });
});

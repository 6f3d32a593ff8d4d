import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { serveToolActionPort } from "../../src/port/index.js";
import { exampleModel } from "../helpers/example.js";
import { openCore } from "./support/core.js";
import { frameArbitrary } from "./support/fuzz-frames.js";
import { messageArbitrary } from "./support/fuzz-messages.js";
import { FuzzTally, socketBatch, workerBatch } from "./support/fuzz-runners.js";
import { watchProcessFaults } from "./support/raw-socket.js";

/**
 * How many generated inputs one run sends in total across both bridges. CI sends 20 000; set
 * RAES_FUZZ_RUNS=1000000 for the long run. Six in ten go to the socket bridge, the rest to the worker bridge.
 */
const TOTAL = Number(process.env.RAES_FUZZ_RUNS ?? 20_000);
const SOCKET_INPUTS = Math.ceil(TOTAL * 0.6);
const WORKER_INPUTS = TOTAL - SOCKET_INPUTS;
const BATCH = 100;
/** RAES_FUZZ_SEED replays a failing run with the seed fast-check printed. */
const SEED = process.env.RAES_FUZZ_SEED === undefined ? {} : { seed: Number(process.env.RAES_FUZZ_SEED) };
const MB = 1024 * 1024;

/** Runs a property; on failure, names what failed (fast-check keeps it only as the error's cause). */
async function holds<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { numRuns, ...SEED, endOnFailure: process.env.RAES_FUZZ_SHRINK === "0" });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw new Error(`${(error as Error).message.slice(0, 2_000)}\ncause: ${String(cause)}`);
  }
}

/** RAES_FUZZ_PROGRESS names a file that gets the running figures every 10 000 inputs of a long run. */
function progress(name: string, tally: FuzzTally, started: number, rss: number, cpu: NodeJS.CpuUsage): void {
  const file = process.env.RAES_FUZZ_PROGRESS;
  if (file && tally.inputs % 10_000 === 0)
    appendFileSync(file, `${name}: ${figures(tally, started, rss, cpu)}\n`);
}

/** Generous: about 30 ms per input, so a loaded machine does not cut the long run short. */
const TIMEOUT = Math.max(10 * 60_000, TOTAL * 30);

function figures(tally: FuzzTally, started: number, rssBefore: number, cpuBefore: NodeJS.CpuUsage): string {
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const rss = process.memoryUsage().rss;
  const peak = process.resourceUsage().maxRSS * 1024;
  return `${tally.summary()}; ${seconds.toFixed(1)} s (CPU ${cpuSeconds.toFixed(1)} s); RSS ${(rssBefore / MB).toFixed(0)} -> ${(rss / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB`;
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

  it(`socket bridge: ${SOCKET_INPUTS} frames over a served port on a real Unix socket`, {
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
            socketBatch(served, frames, tally).then(() => progress("socket", tally, started, rss, cpu)),
        ),
        Math.ceil(SOCKET_INPUTS / BATCH),
      );
    } finally {
      await served.close();
    }
    t.diagnostic(`socket bridge: ${figures(tally, started, rss, cpu)}`);
    assert.ok(tally.inputs >= SOCKET_INPUTS);
    assert.deepEqual(watch.faults, [], "no unhandled rejection and no uncaught exception");
  });

  it(`worker bridge: ${WORKER_INPUTS} messages through real MessageChannels to exposed ports`, {
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
          workerBatch(core.port, messages, tally).then(() => progress("worker", tally, started, rss, cpu)),
      ),
      Math.ceil(WORKER_INPUTS / BATCH),
    );
    t.diagnostic(`worker bridge: ${figures(tally, started, rss, cpu)}`);
    assert.ok(tally.inputs >= WORKER_INPUTS);
    assert.deepEqual(watch.faults, [], "no unhandled rejection and no uncaught exception");
  });
});
